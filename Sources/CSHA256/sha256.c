// See include/csha256.h. The rounds follow Intel's "Intel SHA Extensions"
// white paper (2013): four message words per step, two rounds per
// SHA256RNDS2, the state kept as ABEF and CDGH.
#include "csha256.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__attribute__((target("sha,sse4.1,ssse3")))
static void compress(uint32_t state[8], const uint8_t *blocks, size_t count) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; count > 0; count--, blocks += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        __m128i words[4];
        for (int i = 0; i < 4; i++)
            words[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * i)), byte_swap);
        // Step i runs rounds 4i to 4i+3 on words[i % 4] and extends the
        // message schedule: the next group's words are finished (msg2)
        // and a later one's started (msg1).
        for (int i = 0; i < 16; i++) {
            __m128i current = words[i % 4];
            __m128i sum = _mm_add_epi32(current, _mm_loadu_si128((const __m128i *)&round_constants[4 * i]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sum);
            if (i >= 3 && i <= 14) {
                __m128i *next = &words[(i + 1) % 4];
                *next = _mm_add_epi32(*next, _mm_alignr_epi8(current, words[(i + 3) % 4], 4));
                *next = _mm_sha256msg2_epu32(*next, current);
            }
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sum, 0x0E));
            if (i >= 1 && i <= 12) {
                __m128i *previous = &words[(i + 3) % 4];
                *previous = _mm_sha256msg1_epu32(*previous, current);
            }
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

int csha256_hardware_available(void) {
    // Asked by every handler thread; the answer never changes, so a thread
    // that finds it unknown may work it out again.
    static atomic_int known = -1;
    int answer = atomic_load_explicit(&known, memory_order_relaxed);
    if (answer < 0) {
        unsigned int eax, ebx, ecx, edx;
        int sse = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSSE3) && (ecx & bit_SSE4_1);
        int sha = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_SHA);
        answer = sse && sha;
        atomic_store_explicit(&known, answer, memory_order_relaxed);
    }
    return answer;
}

int csha256_hardware(const uint8_t *data, size_t length, uint8_t digest[32]) {
    if (!csha256_hardware_available()) return -1;
    uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t whole = length / 64;
    compress(state, data, whole);
    // The rest, the 0x80 byte, zeros and the length in bits: one block or two.
    uint8_t tail[128] = {0};
    size_t rest = length % 64;
    if (rest > 0) memcpy(tail, data + 64 * whole, rest);
    tail[rest] = 0x80;
    size_t tail_length = rest < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) tail[tail_length - 1 - i] = (uint8_t)(bits >> (8 * i));
    compress(state, tail, tail_length / 64);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
    return 0;
}

#else

int csha256_hardware_available(void) { return 0; }

int csha256_hardware(const uint8_t *data, size_t length, uint8_t digest[32]) {
    (void)data, (void)length, (void)digest;
    return -1;
}

#endif
