/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How lcores share words without a lock. Every shared field says who writes it ("cp": the
 * main lcore, "dp": the workers, or the owner of a port); the writer and the readers on
 * other lcores go through these, never through plain accesses or raw __atomic_* builtins,
 * so that the compiler neither tears nor caches what another lcore sees:
 *
 *   lsw_store_relaxed / lsw_load_relaxed  a word that stands on its own: a flag, a level,
 *                                         a timestamp, a count (one writer);
 *   lsw_publish / lsw_acquire             a pointer or a flag that makes what its writer
 *                                         did before it visible (a snapshot, a next-hop
 *                                         group, a MAC, the stop flag);
 *   lsw_cas_relaxed                       a word several lcores update (the ICMP bucket);
 *   lsw_counter_read                      a counter: its one writer increments it plainly,
 *                                         as VPP's do (an atomic add per packet costs), and
 *                                         readers sum what they read.
 *
 * On x86 each compiles to a plain load or store (the CAS to a lock cmpxchg). They are
 * macros so that they keep the type of the field.
 */
#ifndef LSW_SHARED_H
#define LSW_SHARED_H

#define lsw_load_relaxed(p)       __atomic_load_n((p), __ATOMIC_RELAXED)
#define lsw_store_relaxed(p, v)   __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define lsw_publish(p, v)         __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define lsw_acquire(p)            __atomic_load_n((p), __ATOMIC_ACQUIRE)
/* True and *@expected unchanged if *@p was *@expected and is now @desired; else false and
 * *@expected is what *@p holds. May fail spuriously: loop. */
#define lsw_cas_relaxed(p, expected, desired) \
	__atomic_compare_exchange_n((p), (expected), (desired), true, __ATOMIC_RELAXED, \
				    __ATOMIC_RELAXED)
#define lsw_counter_read(p)       __atomic_load_n((p), __ATOMIC_RELAXED)

#endif
