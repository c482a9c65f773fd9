// The GLib and GIO functions cnetworkmanager calls, as a table filled with
// dlsym (as in CSecret/secret_api.h): GIO is loaded on first use, never
// linked. Types and constants come from GIO's real headers, and each slot
// has the type of the function it holds.
#ifndef CNETWORKMANAGER_GIO_API_H
#define CNETWORKMANAGER_GIO_API_H

#include <gio/gio.h>

#define CNM_SLOT(function) __typeof__(function) *function

typedef struct {
    CNM_SLOT(g_log_set_default_handler);
    CNM_SLOT(g_error_free);
    CNM_SLOT(g_free);
    CNM_SLOT(g_object_unref);
    CNM_SLOT(g_dbus_error_quark);
    CNM_SLOT(g_dbus_address_get_for_bus_sync);
    CNM_SLOT(g_dbus_connection_new_for_address_sync);
    CNM_SLOT(g_dbus_connection_is_closed);
    CNM_SLOT(g_dbus_connection_call_sync);
    CNM_SLOT(g_dbus_connection_add_filter);
    CNM_SLOT(g_dbus_message_get_message_type);
    CNM_SLOT(g_dbus_message_get_path);
    CNM_SLOT(g_dbus_message_get_member);
    CNM_SLOT(g_variant_new);
    CNM_SLOT(g_variant_get_child_value);
    CNM_SLOT(g_variant_lookup);
    CNM_SLOT(g_variant_is_of_type);
    CNM_SLOT(g_variant_unref);
} GIOFunctions;

#undef CNM_SLOT

#endif
