/* Placeholder until the GL module lands; delete when src/gl has real sources. */
typedef int ossa_gl_placeholder;
