/* The ordinary build's side of main.h: the C library's output and entry. */
#include <stdio.h>

static void amble_put(const char *s) { fputs(s, stdout); }
static void amble_put_runtime_counts(void) {}
#include "main.h"
int main(int argc, char **argv) { return amble_main(argc, argv); }
