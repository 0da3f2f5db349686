/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ctgrind technique: memcheck's client requests mark secrets undefined,
 * so that valgrind reports any branch or address that depends on them.
 * Builds without valgrind's header (cross builds) define TEST_NO_VALGRIND and
 * get no-ops, and the tests that need valgrind skip themselves.
 */
#ifndef WGD_TESTS_CTGRIND_H
#define WGD_TESTS_CTGRIND_H

#ifndef TEST_NO_VALGRIND
#include <valgrind/memcheck.h>
#else
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

#endif
