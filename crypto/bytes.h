/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Byte-order loads and stores that never assume alignment.
 *
 * A packed, may_alias one-member struct tells the compiler "this word may sit
 * at any address".  Where the target has fast unaligned access (x86, arm64)
 * that is a single load; on MIPS32 it is lwl/lwr (swl/swr for stores); on
 * strict-alignment targets the compiler emits byte accesses.  Unlike
 * memcpy(), it never becomes a call to libc's memcpy at -Os (gcc does that on
 * MIPS), and it has no undefined behaviour on unaligned or aliased buffers.
 */
#ifndef WGD_CRYPTO_BYTES_H
#define WGD_CRYPTO_BYTES_H

#include <stdint.h>

struct bytes_u16 { uint16_t v; } __attribute__((packed, may_alias));
struct bytes_u32 { uint32_t v; } __attribute__((packed, may_alias));
struct bytes_u64 { uint64_t v; } __attribute__((packed, may_alias));

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BYTES_BIG_ENDIAN 1
#define bytes_to_le16(x) __builtin_bswap16(x)
#define bytes_to_le32(x) __builtin_bswap32(x)
#define bytes_to_le64(x) __builtin_bswap64(x)
#define bytes_to_be16(x) (x)
#define bytes_to_be32(x) (x)
#define bytes_to_be64(x) (x)
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BYTES_BIG_ENDIAN 0
#define bytes_to_le16(x) (x)
#define bytes_to_le32(x) (x)
#define bytes_to_le64(x) (x)
#define bytes_to_be16(x) __builtin_bswap16(x)
#define bytes_to_be32(x) __builtin_bswap32(x)
#define bytes_to_be64(x) __builtin_bswap64(x)
#else
#error "unknown byte order"
#endif

static inline uint16_t le16_load(const void *p)
{
	return bytes_to_le16(((const struct bytes_u16 *)p)->v);
}

static inline uint32_t le32_load(const void *p)
{
	return bytes_to_le32(((const struct bytes_u32 *)p)->v);
}

static inline uint64_t le64_load(const void *p)
{
	return bytes_to_le64(((const struct bytes_u64 *)p)->v);
}

static inline void le16_store(void *p, uint16_t v)
{
	((struct bytes_u16 *)p)->v = bytes_to_le16(v);
}

static inline void le32_store(void *p, uint32_t v)
{
	((struct bytes_u32 *)p)->v = bytes_to_le32(v);
}

static inline void le64_store(void *p, uint64_t v)
{
	((struct bytes_u64 *)p)->v = bytes_to_le64(v);
}

static inline uint16_t be16_load(const void *p)
{
	return bytes_to_be16(((const struct bytes_u16 *)p)->v);
}

static inline uint32_t be32_load(const void *p)
{
	return bytes_to_be32(((const struct bytes_u32 *)p)->v);
}

static inline uint64_t be64_load(const void *p)
{
	return bytes_to_be64(((const struct bytes_u64 *)p)->v);
}

static inline void be16_store(void *p, uint16_t v)
{
	((struct bytes_u16 *)p)->v = bytes_to_be16(v);
}

static inline void be32_store(void *p, uint32_t v)
{
	((struct bytes_u32 *)p)->v = bytes_to_be32(v);
}

static inline void be64_store(void *p, uint64_t v)
{
	((struct bytes_u64 *)p)->v = bytes_to_be64(v);
}

static inline uint32_t rol32(uint32_t v, unsigned int n)
{
	return (v << n) | (v >> (32 - n));
}

static inline uint32_t ror32(uint32_t v, unsigned int n)
{
	return (v >> n) | (v << (32 - n));
}

#endif
