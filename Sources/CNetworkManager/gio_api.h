// The part of the GLib and GIO ABI that cnetworkmanager uses, declared here
// instead of included because every function is reached through dlsym
// (as in CSecret/secret_api.h): no glib-2.0 headers or link flags. Layouts
// and constants of GLib 2.74 (Debian 12), stable since GLib 2.30.
#ifndef CNETWORKMANAGER_GIO_API_H
#define CNETWORKMANAGER_GIO_API_H

#include <stdint.h>

typedef uint32_t GQuark;
typedef struct {
    GQuark domain;
    int code;
    char *message;
} GError;

typedef struct GDBusConnection GDBusConnection;
typedef struct GDBusMessage GDBusMessage;
typedef struct GVariant GVariant;
typedef struct GVariantType GVariantType;

enum {
    G_BUS_TYPE_SYSTEM = 1,
    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT = 1 << 0,
    G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION = 1 << 3,
    G_DBUS_CALL_FLAGS_NO_AUTO_START = 1 << 0,
    G_DBUS_MESSAGE_TYPE_SIGNAL = 4,
    // gio/gioenums.h, GDBusError
    G_DBUS_ERROR_SERVICE_UNKNOWN = 2,
    G_DBUS_ERROR_NAME_HAS_NO_OWNER = 3,
};

typedef GDBusMessage *(*GDBusMessageFilterFunction)(GDBusConnection *connection, GDBusMessage *message,
                                                    int incoming, void *user_data);

typedef struct {
    void *(*g_log_set_default_handler)(void (*handler)(const char *, int, const char *, void *), void *user_data);
    void (*g_error_free)(GError *error);
    void (*g_free)(void *memory);
    void (*g_object_unref)(void *object);
    GQuark (*g_dbus_error_quark)(void);
    char *(*g_dbus_address_get_for_bus_sync)(int bus_type, void *cancellable, GError **error);
    GDBusConnection *(*g_dbus_connection_new_for_address_sync)(const char *address, int flags, void *observer,
                                                              void *cancellable, GError **error);
    int (*g_dbus_connection_is_closed)(GDBusConnection *connection);
    GVariant *(*g_dbus_connection_call_sync)(GDBusConnection *connection, const char *bus_name,
                                             const char *object_path, const char *interface_name,
                                             const char *method_name, GVariant *parameters,
                                             const GVariantType *reply_type, int flags, int timeout_msec,
                                             void *cancellable, GError **error);
    unsigned (*g_dbus_connection_add_filter)(GDBusConnection *connection, GDBusMessageFilterFunction filter,
                                             void *user_data, void (*user_data_free)(void *));
    int (*g_dbus_message_get_message_type)(GDBusMessage *message);
    const char *(*g_dbus_message_get_path)(GDBusMessage *message);
    const char *(*g_dbus_message_get_member)(GDBusMessage *message);
    GVariant *(*g_variant_new)(const char *format, ...);
    GVariant *(*g_variant_get_child_value)(GVariant *value, unsigned long index);
    int (*g_variant_lookup)(GVariant *dictionary, const char *key, const char *format, ...);
    int (*g_variant_is_of_type)(GVariant *value, const GVariantType *type);
    void (*g_variant_unref)(GVariant *value);
} GIOFunctions;

#endif
