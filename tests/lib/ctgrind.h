/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ctgrind technique: memcheck's client requests mark secrets undefined,
 * so that valgrind reports any branch or address that depends on them.
 * Builds without valgrind's header (cross builds) define TEST_NO_VALGRIND and
 * get no-ops, and the tests that need valgrind skip themselves.
 */
#ifndef WGD_TESTS_CTGRIND_H
#define WGD_TESTS_CTGRIND_H

#if defined(TEST_CT_MSAN)
/*
 * The same marks in MemorySanitizer's shadow (clang -fsanitize=memory, the
 * program and the library built with it): MSan reports a branch or an
 * address that depends on poisoned bytes, and it runs every instruction
 * natively, AVX-512 included, which valgrind cannot.
 */
#include <sanitizer/msan_interface.h>
#define RUNNING_ON_VALGRIND 1
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) __msan_poison((p), (n))
#define VALGRIND_MAKE_MEM_DEFINED(p, n) __msan_unpoison((p), (n))
#elif !defined(TEST_NO_VALGRIND)
#include <valgrind/memcheck.h>
#else
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

#endif
