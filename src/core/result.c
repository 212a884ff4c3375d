#include <ossa/common.h>

const char *ossa_result_string(ossa_result result) {
    switch (result) {
    case OSSA_OK: return "OSSA_OK";
    case OSSA_ERROR_INVALID_ARGUMENT: return "OSSA_ERROR_INVALID_ARGUMENT";
    case OSSA_ERROR_OUT_OF_MEMORY: return "OSSA_ERROR_OUT_OF_MEMORY";
    case OSSA_ERROR_LIMIT: return "OSSA_ERROR_LIMIT";
    case OSSA_ERROR_IO: return "OSSA_ERROR_IO";
    case OSSA_ERROR_PARSE: return "OSSA_ERROR_PARSE";
    case OSSA_ERROR_INVALID_DATA: return "OSSA_ERROR_INVALID_DATA";
    case OSSA_ERROR_UNSUPPORTED: return "OSSA_ERROR_UNSUPPORTED";
    case OSSA_ERROR_BUFFER_TOO_SMALL: return "OSSA_ERROR_BUFFER_TOO_SMALL";
    case OSSA_ERROR_GL: return "OSSA_ERROR_GL";
    case OSSA_RESULT_COUNT: break;
    }
    return "OSSA_RESULT_UNKNOWN";
}

const char *ossa_version(void) { return OSSA_VERSION_STRING; }
