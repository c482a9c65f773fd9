#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call: leave the WAL as
// it is when the last connection closes (no checkpoint on close).
static inline int csqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

// sqlite3_config is variadic too. Without memory statistics (which lib
// never reads) an allocation takes no global mutex: about 2,000 mutex
// calls fewer in `lib get --offline`. Must run before sqlite3_initialize.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// The WAL index's header (https://www.sqlite.org/walformat.html): two
// copies of 48 bytes at the start of the -shm file, rewritten (the second
// copy first) by every commit of any connection in any process. NULL when
// the database has no shared WAL index (not in WAL mode, or not read yet).
static inline const volatile unsigned char *csqlite_wal_index(sqlite3 *db) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == 0) return 0;
    const sqlite3_io_methods *methods = file->pMethods;
    if (methods == 0 || methods->iVersion < 2 || methods->xShmMap == 0) return 0;
    volatile void *region = 0;
    if (methods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return 0;
    return (const volatile unsigned char *)region;
}

// Copies the header as SQLite's own readers do, without a lock: the first
// copy, a barrier, the second. 1 when both agree and the index is set up;
// 0 while a commit is rewriting them.
static inline int csqlite_wal_index_header(const volatile unsigned char *index, unsigned char header[48]) {
    unsigned char second[48];
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    for (int i = 0; i < 48; i++) header[i] = index[i];
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 48; i++) second[i] = index[48 + i];
    const int isInit = header[12];
    return isInit != 0 && __builtin_memcmp(header, second, 48) == 0;
}
