// The one dlopen loader of the C shims (CCurl, CSecret, CNetworkManager):
// each reaches its library's functions through dlsym, so that a process
// that never needs the library (`lib status` in a shell prompt) never
// loads it. Types and constants come from the library's real headers.
#ifndef CDYNAMICLIBRARY_H
#define CDYNAMICLIBRARY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A function to resolve: its name, and where to put its address.
typedef struct {
    const char *name;
    void **slot;
} dynamic_symbol;

/// Fills a dynamic_symbol from a table member named like the function:
/// DYNAMIC_SYMBOL(table, g_free) resolves "g_free" into table.g_free.
#define DYNAMIC_SYMBOL(table, function) {#function, (void **)&(table).function}

/// Loads `file` (RTLD_LAZY | RTLD_LOCAL: its symbols stay out of the global
/// namespace) and resolves every symbol into its slot; the symbols of the
/// libraries it depends on are found too. Returns the handle, never closed
/// (GLib registers types and starts threads that must outlive any one
/// call), or NULL with the reason in `failure` (dlerror's message, or the
/// first missing symbol) and every slot cleared. Not thread-safe: callers
/// hold their own lock or pthread_once.
void *dynamic_library_open(const char *file, const dynamic_symbol *symbols, size_t count, char *failure,
                           size_t failure_capacity);

#ifdef __cplusplus
}
#endif

#endif
