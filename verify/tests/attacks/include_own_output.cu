#include "/proc/self/fd/1"
