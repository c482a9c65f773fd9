// See include/cnetworkmanager.h.
// NetworkManager's D-Bus API: https://networkmanager.dev/docs/api/latest/gdbus-org.freedesktop.NetworkManager.html
#define _GNU_SOURCE
#include "cnetworkmanager.h"
#include "gio_api.h"

#include <cdynamiclibrary.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static const char *const nm_name = "org.freedesktop.NetworkManager";
static const char *const nm_path = "/org/freedesktop/NetworkManager";

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int load_attempted;
static int loaded;
static GIOFunctions gio;
static GDBusConnection *connection;
static int change_pipe[2] = {-1, -1};
static atomic_uint_fast64_t change_count;

static void discard_log_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data) {
    (void)domain, (void)level, (void)message, (void)user_data;
}

static int load_gio(void) {
    if (load_attempted) return loaded;
    load_attempted = 1;
    const dynamic_symbol symbols[] = {
        DYNAMIC_SYMBOL(gio, g_log_set_default_handler),
        DYNAMIC_SYMBOL(gio, g_error_free),
        DYNAMIC_SYMBOL(gio, g_free),
        DYNAMIC_SYMBOL(gio, g_object_unref),
        DYNAMIC_SYMBOL(gio, g_dbus_error_quark),
        DYNAMIC_SYMBOL(gio, g_dbus_address_get_for_bus_sync),
        DYNAMIC_SYMBOL(gio, g_dbus_connection_new_for_address_sync),
        DYNAMIC_SYMBOL(gio, g_dbus_connection_is_closed),
        DYNAMIC_SYMBOL(gio, g_dbus_connection_call_sync),
        DYNAMIC_SYMBOL(gio, g_dbus_connection_add_filter),
        DYNAMIC_SYMBOL(gio, g_dbus_message_get_message_type),
        DYNAMIC_SYMBOL(gio, g_dbus_message_get_path),
        DYNAMIC_SYMBOL(gio, g_dbus_message_get_member),
        DYNAMIC_SYMBOL(gio, g_variant_new),
        DYNAMIC_SYMBOL(gio, g_variant_get_child_value),
        DYNAMIC_SYMBOL(gio, g_variant_lookup),
        DYNAMIC_SYMBOL(gio, g_variant_is_of_type),
        DYNAMIC_SYMBOL(gio, g_variant_unref),
    };
    char failure[256];
    if (dynamic_library_open("libgio-2.0.so.0", symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure) == NULL)
        return 0;
    // GLib's warnings would land in the middle of lib's output; the
    // statuses returned here carry what matters (as in CSecret).
    gio.g_log_set_default_handler(discard_log_message, NULL);
    loaded = 1;
    return 1;
}

// Runs on GDBus's worker thread for every incoming message: a passive
// filter, so no main loop is needed to hear signals. Only wakes the reader.
static GDBusMessage *notice_changes(GDBusConnection *from, GDBusMessage *message, gboolean incoming, gpointer user_data) {
    (void)from, (void)user_data;
    if (!incoming || gio.g_dbus_message_get_message_type(message) != G_DBUS_MESSAGE_TYPE_SIGNAL) return message;
    const char *path = gio.g_dbus_message_get_path(message);
    const char *member = gio.g_dbus_message_get_member(message);
    int relevant = (path && strcmp(path, nm_path) == 0) || (member && strcmp(member, "NameOwnerChanged") == 0);
    if (relevant) {
        atomic_fetch_add(&change_count, 1);
        if (change_pipe[1] >= 0) {
            char byte = 1;
            // A full pipe already says "something changed".
            ssize_t ignored = write(change_pipe[1], &byte, 1);
            (void)ignored;
        }
    }
    return message;
}

static void add_match(const char *rule, unsigned timeout_ms) {
    GError *error = NULL;
    GVariant *reply = gio.g_dbus_connection_call_sync(
        connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
        gio.g_variant_new("(s)", rule), NULL, 0, (int)timeout_ms, NULL, &error);
    if (reply) gio.g_variant_unref(reply);
    if (error) gio.g_error_free(error);
}

// With the mutex held: a live connection to the system bus, subscribed to
// NetworkManager's signals, or NULL with *status set.
static GDBusConnection *system_bus(unsigned timeout_ms, int *status) {
    if (!load_gio()) {
        *status = CNM_NOT_LOADABLE;
        return NULL;
    }
    if (connection && gio.g_dbus_connection_is_closed(connection)) {
        gio.g_object_unref(connection);
        connection = NULL;
    }
    if (connection) return connection;
    GError *error = NULL;
    char *address = gio.g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, NULL, &error);
    if (address == NULL) {
        if (error) gio.g_error_free(error);
        *status = CNM_NO_BUS;
        return NULL;
    }
    // A private connection (not g_bus_get's shared one): its exit-on-close
    // is off, so a bus that goes away never ends lib.
    connection = gio.g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
        NULL, &error);
    gio.g_free(address);
    if (connection == NULL) {
        if (error) gio.g_error_free(error);
        *status = CNM_NO_BUS;
        return NULL;
    }
    gio.g_dbus_connection_add_filter(connection, notice_changes, NULL, NULL);
    add_match("type='signal',sender='org.freedesktop.NetworkManager',path='/org/freedesktop/NetworkManager'",
              timeout_ms);
    add_match("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
              "arg0='org.freedesktop.NetworkManager'",
              timeout_ms);
    *status = CNM_OK;
    return connection;
}

int cnm_read(cnm_properties *properties, unsigned timeout_ms) {
    memset(properties, 0, sizeof *properties);
    pthread_mutex_lock(&mutex);
    int status = CNM_FAILED;
    GDBusConnection *bus = system_bus(timeout_ms, &status);
    if (bus == NULL) {
        pthread_mutex_unlock(&mutex);
        return status;
    }
    GError *error = NULL;
    // A type string cast as G_VARIANT_TYPE does, without its check, which calls into (unlinked) GLib.
    GVariant *reply = gio.g_dbus_connection_call_sync(
        bus, nm_name, nm_path, "org.freedesktop.DBus.Properties", "GetAll", gio.g_variant_new("(s)", nm_name),
        (const GVariantType *)"(a{sv})", G_DBUS_CALL_FLAGS_NO_AUTO_START, (int)timeout_ms, NULL, &error);
    if (reply == NULL) {
        status = CNM_FAILED;
        if (error && error->domain == gio.g_dbus_error_quark() &&
            (error->code == G_DBUS_ERROR_SERVICE_UNKNOWN || error->code == G_DBUS_ERROR_NAME_HAS_NO_OWNER))
            status = CNM_ABSENT;
        if (error) gio.g_error_free(error);
        pthread_mutex_unlock(&mutex);
        return status;
    }
    GVariant *dictionary = gio.g_variant_get_child_value(reply, 0);
    uint32_t value = 0;
    if (gio.g_variant_lookup(dictionary, "State", "u", &value)) properties->state = value;
    if (gio.g_variant_lookup(dictionary, "Connectivity", "u", &value)) properties->connectivity = value;
    if (gio.g_variant_lookup(dictionary, "Metered", "u", &value)) properties->metered = value;
    gio.g_variant_unref(dictionary);
    gio.g_variant_unref(reply);
    pthread_mutex_unlock(&mutex);
    return CNM_OK;
}

int cnm_changes_descriptor(unsigned timeout_ms) {
    pthread_mutex_lock(&mutex);
    if (change_pipe[0] < 0) {
        if (pipe2(change_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
            change_pipe[0] = change_pipe[1] = -1;
            pthread_mutex_unlock(&mutex);
            return -1;
        }
    }
    int status = CNM_FAILED;
    GDBusConnection *bus = system_bus(timeout_ms, &status);
    int descriptor = bus ? change_pipe[0] : -1;
    pthread_mutex_unlock(&mutex);
    return descriptor;
}

uint64_t cnm_change_count(void) { return atomic_load(&change_count); }

int cnm_is_loaded(void) {
    pthread_mutex_lock(&mutex);
    int result = loaded;
    pthread_mutex_unlock(&mutex);
    return result;
}
