// See include/cdynamiclibrary.h.
#include "cdynamiclibrary.h"

#include <dlfcn.h>
#include <stdio.h>

void *dynamic_library_open(const char *file, const dynamic_symbol *symbols, size_t count, char *failure,
                           size_t failure_capacity) {
    // Lazy: of libcurl's and OpenSSL's thousands of relocations a command
    // uses a few dozen (RTLD_NOW bound them all: 2.6 M instructions).
    void *handle = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        if (failure && failure_capacity) snprintf(failure, failure_capacity, "%s", reason ? reason : file);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        dlerror();
        *symbols[i].slot = dlsym(handle, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            if (failure && failure_capacity) snprintf(failure, failure_capacity, "%s has no symbol %s", file, symbols[i].name);
            for (size_t j = 0; j < count; j++) *symbols[j].slot = NULL;
            return NULL;
        }
    }
    return handle;
}
