#define PRIVATE "a header of another submission, never named by steal_headers.cu"
