#ifndef INTERPAY_CSQLITE_SHIM_H
#define INTERPAY_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLite's process-wide settings (sqlite3_config) for InterPayStore, which GRDB does not offer: sqlite3_config is
 * variadic, which Swift cannot call, so one typed shim per setting. SQLite takes them only before it initializes
 * (the first connection opened in the process); later they return SQLITE_MISUSE and change nothing. */

/* Turns SQLite's memory statistics off: with them on (SQLite's default and Debian's build), every allocation and
 * free takes a process-wide mutex to count bytes that nothing here reads. True when SQLite took the setting. */
static inline int interpay_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
}

#endif
