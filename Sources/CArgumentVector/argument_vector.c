// The Swift runtime's argv for `lib`, without its scan of /proc/self/maps.
//
// On Linux the runtime finds argc and argv for CommandLine.arguments with a
// static initialiser (CommandLine.cpp's ArgvGrabber) that opens
// /proc/self/maps and sscanf's every line to find the stack: about 43,000
// instructions and three system calls before main, a third of what
// `lib --version` costs in all. glibc hands argc and argv to every
// .init_array function, so they are kept here instead, and this definition
// of the runtime's entry point makes the static link leave CommandLine.cpp's
// object (and its initialiser) out.
#include "cargumentvector.h"

static char **captured_argv;
static int captured_argc;

static void capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    captured_argc = argc;
    captured_argv = argv;
}

__attribute__((section(".init_array"), used))
static void (*const capture_arguments_at_start)(int, char **, char **) = capture_arguments;

__attribute__((swiftcall))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    *outArgLen = captured_argc;
    return captured_argv;
}
