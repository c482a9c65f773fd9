// The GLib, GIO and libsecret functions csecret calls, as a table that
// csecret_functions() fills with dlsym: the libraries are loaded on first
// use, never linked. Every type and constant comes from their real headers
// (libsecret-1-dev, which brings GLib's), and each slot has the type of
// the function it holds, so a prototype that changes fails the build.
#ifndef CSECRET_SECRET_API_H
#define CSECRET_SECRET_API_H

#include <libsecret/secret.h>
#include <stddef.h>

#define CSECRET_SLOT(function) __typeof__(function) *function

/// Every function csecret calls, resolved once by csecret_functions().
typedef struct {
    // GLib
    CSECRET_SLOT(g_hash_table_new);
    CSECRET_SLOT(g_hash_table_insert);
    CSECRET_SLOT(g_hash_table_unref);
    CSECRET_SLOT(g_str_hash);
    CSECRET_SLOT(g_str_equal);
    CSECRET_SLOT(g_error_free);
    CSECRET_SLOT(g_list_free);
    CSECRET_SLOT(g_list_free_full);
    CSECRET_SLOT(g_log_set_default_handler);
    CSECRET_SLOT(g_io_error_quark);
    CSECRET_SLOT(g_dbus_error_quark);
    CSECRET_SLOT(g_dbus_error_strip_remote_error);
    // GObject
    CSECRET_SLOT(g_object_unref);
    // GIO
    CSECRET_SLOT(g_cancellable_new);
    CSECRET_SLOT(g_cancellable_cancel);
    CSECRET_SLOT(g_bus_get_sync);
    CSECRET_SLOT(g_dbus_connection_set_exit_on_close);
    // libsecret
    CSECRET_SLOT(secret_error_get_quark);
    CSECRET_SLOT(secret_service_get_sync);
    CSECRET_SLOT(secret_service_search_sync);
    CSECRET_SLOT(secret_service_unlock_sync);
    CSECRET_SLOT(secret_service_store_sync);
    CSECRET_SLOT(secret_collection_for_alias_sync);
    CSECRET_SLOT(secret_collection_get_locked);
    CSECRET_SLOT(secret_item_get_locked);
    CSECRET_SLOT(secret_item_get_modified);
    CSECRET_SLOT(secret_item_load_secret_sync);
    CSECRET_SLOT(secret_item_get_secret);
    CSECRET_SLOT(secret_item_delete_sync);
    CSECRET_SLOT(secret_value_new);
    CSECRET_SLOT(secret_value_get);
    CSECRET_SLOT(secret_value_unref);
} SecretFunctions;

#undef CSECRET_SLOT

/// Loads libsecret on the first call; later calls return the same table.
/// NULL when it could not be loaded, with the reason in `message`.
const SecretFunctions *csecret_functions(char *message, size_t message_capacity);

/// Copies `text` into `message`, truncated and NUL-terminated.
void csecret_set_message(char *message, size_t message_capacity, const char *text);

#endif
