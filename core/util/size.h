/*
 * The one way pyrt writes a size for people: binary units (KiB, MiB, GiB,
 * TiB) with one decimal, bytes below 1 KiB.  Every front end and every core
 * message uses it, so status, the consent screen and progress agree.
 */
#ifndef PYRT_SIZE_H
#define PYRT_SIZE_H

#include <stddef.h>
#include <stdint.h>

/** "812 B", "12.3 KiB", "7.5 MiB", "1.2 GiB" into buf. */
void pyrt_size_human(uint64_t n, char *buf, size_t len);

#endif
