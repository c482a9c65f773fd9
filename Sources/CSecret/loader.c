// Loads libsecret with dlopen the first time the keyring is used.
#include "csecret.h"
#include "secret_api.h"

#include <cdynamiclibrary.h>
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

static void discard_log_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)user_data;
}

const SecretFunctions *csecret_functions(char *message, size_t message_capacity) {
    pthread_mutex_lock(&load_mutex);
    if (!load_attempted) {
        load_attempted = 1;
        // libsecret's handle also finds GLib's, GObject's and GIO's symbols:
        // a handle's lookup scope includes the libraries it depends on.
        const dynamic_symbol symbols[] = {
            DYNAMIC_SYMBOL(functions, g_hash_table_new),
            DYNAMIC_SYMBOL(functions, g_hash_table_insert),
            DYNAMIC_SYMBOL(functions, g_hash_table_unref),
            DYNAMIC_SYMBOL(functions, g_str_hash),
            DYNAMIC_SYMBOL(functions, g_str_equal),
            DYNAMIC_SYMBOL(functions, g_error_free),
            DYNAMIC_SYMBOL(functions, g_list_free),
            DYNAMIC_SYMBOL(functions, g_list_free_full),
            DYNAMIC_SYMBOL(functions, g_log_set_default_handler),
            DYNAMIC_SYMBOL(functions, g_io_error_quark),
            DYNAMIC_SYMBOL(functions, g_dbus_error_quark),
            DYNAMIC_SYMBOL(functions, g_dbus_error_strip_remote_error),
            DYNAMIC_SYMBOL(functions, g_object_unref),
            DYNAMIC_SYMBOL(functions, g_cancellable_new),
            DYNAMIC_SYMBOL(functions, g_cancellable_cancel),
            DYNAMIC_SYMBOL(functions, g_bus_get_sync),
            DYNAMIC_SYMBOL(functions, g_dbus_connection_set_exit_on_close),
            DYNAMIC_SYMBOL(functions, secret_error_get_quark),
            DYNAMIC_SYMBOL(functions, secret_service_get_sync),
            DYNAMIC_SYMBOL(functions, secret_service_search_sync),
            DYNAMIC_SYMBOL(functions, secret_service_unlock_sync),
            DYNAMIC_SYMBOL(functions, secret_service_store_sync),
            DYNAMIC_SYMBOL(functions, secret_collection_for_alias_sync),
            DYNAMIC_SYMBOL(functions, secret_collection_get_locked),
            DYNAMIC_SYMBOL(functions, secret_item_get_locked),
            DYNAMIC_SYMBOL(functions, secret_item_get_modified),
            DYNAMIC_SYMBOL(functions, secret_item_load_secret_sync),
            DYNAMIC_SYMBOL(functions, secret_item_get_secret),
            DYNAMIC_SYMBOL(functions, secret_item_delete_sync),
            DYNAMIC_SYMBOL(functions, secret_value_new),
            DYNAMIC_SYMBOL(functions, secret_value_get),
            DYNAMIC_SYMBOL(functions, secret_value_unref),
        };
        if (dynamic_library_open(library_file, symbols, sizeof symbols / sizeof symbols[0], load_failure,
                                 sizeof load_failure) != NULL) {
            load_succeeded = 1;
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
