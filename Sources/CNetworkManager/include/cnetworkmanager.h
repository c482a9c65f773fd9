// NetworkManager's view of the network, read over the system bus with GDBus
// (GIO), which is loaded with dlopen the first time it is asked for and
// never at start: lib reads it only after a request failed and while it
// waits (DESIGN.md, "Path status and failure explanations"). GIO is the
// library libsecret already brings for the keyring, so nothing new is
// installed.
#ifndef CNETWORKMANAGER_H
#define CNETWORKMANAGER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CNM_OK = 0,
    /// No org.freedesktop.NetworkManager on the system bus.
    CNM_ABSENT = 1,
    /// The system bus could not be reached (no socket, refused, no address).
    CNM_NO_BUS = 2,
    /// libgio-2.0.so.0, or a symbol in it, could not be loaded.
    CNM_NOT_LOADABLE = 3,
    /// Anything else (a timeout, an answer of the wrong shape).
    CNM_FAILED = 4,
} cnm_status;

/// The manager object's State (NMState), Connectivity (NMConnectivityState)
/// and Metered (NMMetered) properties; 0 (unknown) for one it lacks.
typedef struct {
    uint32_t state;
    uint32_t connectivity;
    uint32_t metered;
} cnm_properties;

/// Reads the three properties with one GetAll call, waiting at most
/// `timeout_ms`. Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS, else
/// the standard socket) on first use with a private connection that never
/// ends the process when the bus goes away. Never starts NetworkManager.
int cnm_read(cnm_properties *properties, unsigned timeout_ms);

/// A descriptor that becomes readable (a byte per signal) whenever
/// NetworkManager's manager object signals a change or its bus name changes
/// owner (it started, stopped or restarted). Non-blocking, close-on-exec,
/// owned by this module: read it empty, never close it. Returns -1 when the
/// bus or GIO cannot be had. The same descriptor on every call.
int cnm_changes_descriptor(unsigned timeout_ms);

/// How many change signals have arrived so far; a reading taken before the
/// count moved may predate a change.
uint64_t cnm_change_count(void);

/// Whether GIO has been loaded by this module (never loads it).
int cnm_is_loaded(void);

#ifdef __cplusplus
}
#endif

#endif
