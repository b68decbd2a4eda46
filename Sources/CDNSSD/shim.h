#ifndef INTERPAY_CDNSSD_SHIM_H
#define INTERPAY_CDNSSD_SHIM_H
/* Avahi's Bonjour-compatible DNS-SD API (libdns_sd, package libavahi-compat-libdnssd-dev). Included by its path
   rather than through pkg-config, whose flags for it carry -D_REENTRANT, which SwiftPM rejects with a warning. */
#include <avahi-compat-libdns_sd/dns_sd.h>
/* Avahi's allocator hook (libavahi-common, which libdns_sd itself uses): see InterPayDiscovery's AvahiMemory. */
#include <avahi-common/malloc.h>
#endif
