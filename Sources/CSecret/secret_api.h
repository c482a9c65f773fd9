// The part of the GLib, GIO and libsecret ABI that csecret uses, declared
// here instead of included, because every function is reached through
// dlsym: no -I flags for glib-2.0 and libsecret-1 are needed, and nothing
// from them is linked. The layouts and constants are those of libsecret
// 0.20 and GLib 2.74 (Debian 12), which have kept them stable since
// libsecret 0.18 and GLib 2.30.
#ifndef CSECRET_SECRET_API_H
#define CSECRET_SECRET_API_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t GQuark;

/// GLib's error value (glib/gerror.h).
typedef struct {
    GQuark domain;
    int code;
    char *message;
} GError;

/// GLib's doubly linked list (glib/glist.h).
typedef struct GList {
    void *data;
    struct GList *next;
    struct GList *prev;
} GList;

typedef struct GHashTable GHashTable;

enum { SECRET_SCHEMA_NONE = 0, SECRET_SCHEMA_ATTRIBUTE_STRING = 0 };

/// libsecret's schema (libsecret/secret-schema.h): a name and up to 32
/// attributes, terminated by a NULL name.
typedef struct {
    const char *name;
    int type;
} SecretSchemaAttribute;

typedef struct {
    const char *name;
    int flags;
    SecretSchemaAttribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} SecretSchema;

enum {
    G_BUS_TYPE_SESSION = 2,
    SECRET_SERVICE_NONE = 0,
    SECRET_COLLECTION_NONE = 0,
    SECRET_SEARCH_ALL = 1 << 1,
};

/// Error codes from gio/gioenums.h and libsecret/secret-types.h.
enum {
    G_IO_ERROR_CANCELLED = 19,
    G_DBUS_ERROR_SERVICE_UNKNOWN = 2,
    G_DBUS_ERROR_NAME_HAS_NO_OWNER = 3,
    G_DBUS_ERROR_NO_REPLY = 4,
    G_DBUS_ERROR_TIMEOUT = 12,
    G_DBUS_ERROR_TIMED_OUT = 20,
    G_DBUS_ERROR_SPAWN_FIRST = 23, // org.freedesktop.DBus.Error.Spawn.ExecFailed
    G_DBUS_ERROR_SPAWN_LAST = 34,  // org.freedesktop.DBus.Error.Spawn.NoMemory
    SECRET_ERROR_IS_LOCKED = 2,
};

/// Every function csecret calls, resolved once by csecret_functions().
typedef struct {
    // GLib
    GHashTable *(*g_hash_table_new)(unsigned (*hash)(const void *), int (*equal)(const void *, const void *));
    void (*g_hash_table_insert)(GHashTable *table, void *key, void *value);
    void (*g_hash_table_unref)(GHashTable *table);
    unsigned (*g_str_hash)(const void *string);
    int (*g_str_equal)(const void *a, const void *b);
    void (*g_error_free)(GError *error);
    void (*g_list_free)(GList *list);
    void (*g_list_free_full)(GList *list, void (*free_item)(void *));
    void *(*g_log_set_default_handler)(void (*handler)(const char *domain, int level, const char *message,
                                                       void *user_data),
                                       void *user_data);
    GQuark (*g_io_error_quark)(void);
    GQuark (*g_dbus_error_quark)(void);
    int (*g_dbus_error_strip_remote_error)(GError *error);
    // GObject
    void (*g_object_unref)(void *object);
    // GIO
    void *(*g_cancellable_new)(void);
    void (*g_cancellable_cancel)(void *cancellable);
    void *(*g_bus_get_sync)(int bus_type, void *cancellable, GError **error);
    void (*g_dbus_connection_set_exit_on_close)(void *connection, int exit_on_close);
    // libsecret
    GQuark (*secret_error_get_quark)(void);
    void *(*secret_service_get_sync)(int flags, void *cancellable, GError **error);
    GList *(*secret_service_search_sync)(void *service, const SecretSchema *schema, GHashTable *attributes,
                                         int flags, void *cancellable, GError **error);
    int (*secret_service_unlock_sync)(void *service, GList *objects, void *cancellable, GList **unlocked,
                                      GError **error);
    int (*secret_service_store_sync)(void *service, const SecretSchema *schema, GHashTable *attributes,
                                     const char *collection, const char *label, void *value,
                                     void *cancellable, GError **error);
    void *(*secret_collection_for_alias_sync)(void *service, const char *alias, int flags, void *cancellable,
                                              GError **error);
    int (*secret_collection_get_locked)(void *collection);
    int (*secret_item_get_locked)(void *item);
    uint64_t (*secret_item_get_modified)(void *item);
    int (*secret_item_load_secret_sync)(void *item, void *cancellable, GError **error);
    void *(*secret_item_get_secret)(void *item);
    int (*secret_item_delete_sync)(void *item, void *cancellable, GError **error);
    void *(*secret_value_new)(const char *secret, ptrdiff_t length, const char *content_type);
    const char *(*secret_value_get)(void *value, size_t *length);
    void (*secret_value_unref)(void *value);
} SecretFunctions;

/// Loads libsecret on the first call; later calls return the same table.
/// NULL when it could not be loaded, with the reason in `message`.
const SecretFunctions *csecret_functions(char *message, size_t message_capacity);

/// Copies `text` into `message`, truncated and NUL-terminated.
void csecret_set_message(char *message, size_t message_capacity, const char *text);

#endif
