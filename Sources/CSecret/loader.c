// Loads libsecret with dlopen the first time the keyring is used.
#include "csecret.h"
#include "secret_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static char library_file[256] = "libsecret-1.so.0";
static int load_attempted;
static int load_succeeded;
static char load_failure[512];
static SecretFunctions functions;

void csecret_set_message(char *message, size_t message_capacity, const char *text) {
    if (message == NULL || message_capacity == 0) return;
    snprintf(message, message_capacity, "%s", text ? text : "");
}

int csecret_use_library(const char *file_name) {
    pthread_mutex_lock(&load_mutex);
    int result = -1;
    if (!load_attempted && file_name != NULL && strlen(file_name) < sizeof library_file) {
        snprintf(library_file, sizeof library_file, "%s", file_name);
        result = 0;
    }
    pthread_mutex_unlock(&load_mutex);
    return result;
}

// dlsym on the libsecret handle also finds GLib, GObject and GIO symbols:
// a handle's lookup scope includes the libraries it depends on.
static int resolve_all(void *handle) {
#define RESOLVE(name)                                                     \
    do {                                                                  \
        *(void **)(&functions.name) = dlsym(handle, #name);               \
        if (functions.name == NULL) {                                     \
            snprintf(load_failure, sizeof load_failure,                   \
                     "%s has no symbol %s", library_file, #name);         \
            return 0;                                                     \
        }                                                                 \
    } while (0)
    RESOLVE(g_hash_table_new);
    RESOLVE(g_hash_table_insert);
    RESOLVE(g_hash_table_unref);
    RESOLVE(g_str_hash);
    RESOLVE(g_str_equal);
    RESOLVE(g_error_free);
    RESOLVE(g_list_free);
    RESOLVE(g_list_free_full);
    RESOLVE(g_log_set_default_handler);
    RESOLVE(g_io_error_quark);
    RESOLVE(g_dbus_error_quark);
    RESOLVE(g_dbus_error_strip_remote_error);
    RESOLVE(g_object_unref);
    RESOLVE(g_cancellable_new);
    RESOLVE(g_cancellable_cancel);
    RESOLVE(g_bus_get_sync);
    RESOLVE(g_dbus_connection_set_exit_on_close);
    RESOLVE(secret_error_get_quark);
    RESOLVE(secret_service_get_sync);
    RESOLVE(secret_service_search_sync);
    RESOLVE(secret_service_unlock_sync);
    RESOLVE(secret_service_store_sync);
    RESOLVE(secret_collection_for_alias_sync);
    RESOLVE(secret_collection_get_locked);
    RESOLVE(secret_item_get_locked);
    RESOLVE(secret_item_get_modified);
    RESOLVE(secret_item_load_secret_sync);
    RESOLVE(secret_item_get_secret);
    RESOLVE(secret_item_delete_sync);
    RESOLVE(secret_value_new);
    RESOLVE(secret_value_get);
    RESOLVE(secret_value_unref);
#undef RESOLVE
    return 1;
}

static void discard_log_message(const char *domain, int level, const char *message, void *user_data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)user_data;
}

const SecretFunctions *csecret_functions(char *message, size_t message_capacity) {
    pthread_mutex_lock(&load_mutex);
    if (!load_attempted) {
        load_attempted = 1;
        // Never closed: GLib registers types and starts threads that must
        // outlive any one call, and cannot be unloaded safely.
        void *handle = dlopen(library_file, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *reason = dlerror();
            snprintf(load_failure, sizeof load_failure, "%s", reason ? reason : library_file);
        } else {
            load_succeeded = resolve_all(handle);
            // GLib prints its warnings and criticals on stderr, in the middle
            // of lib's own output: libsecret 0.20.5 logs "g_task_return_error:
            // assertion 'error != NULL' failed" when a prompt is cancelled
            // (measured), though the call then fails properly. The statuses
            // carry what matters, so those messages are dropped. Only the
            // g_log handler is replaced, not the structured-log writer, which
            // GLib allows to be set once per process and aborts otherwise.
            if (load_succeeded) functions.g_log_set_default_handler(discard_log_message, NULL);
        }
    }
    int succeeded = load_succeeded;
    if (!succeeded) csecret_set_message(message, message_capacity, load_failure);
    pthread_mutex_unlock(&load_mutex);
    return succeeded ? &functions : NULL;
}

int csecret_load(char *message, size_t message_capacity) {
    return csecret_functions(message, message_capacity) ? CSECRET_OK : CSECRET_NOT_LOADABLE;
}
