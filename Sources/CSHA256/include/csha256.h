// SHA-256 on the processor's SHA extensions (x86-64 SHA-NI), for the
// digests lib-server takes on every request (a token's, an idempotency
// record's): about a tenth of the instructions of a portable SHA-256.
// Processors without them get -1, and the caller hashes another way.
#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Whether this processor has the instructions csha256_hardware uses.
int csha256_hardware_available(void);

/// The SHA-256 digest of `data` into `digest` (32 bytes): 0, or -1 (and
/// nothing written) when the processor lacks the SHA extensions.
int csha256_hardware(const uint8_t *data, size_t length, uint8_t digest[32]);

#ifdef __cplusplus
}
#endif

#endif
