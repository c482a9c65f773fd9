#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
