# SPDX-License-Identifier: BSD-3-Clause
"""lsw's Python library, shared by lswctl, lsw-lab, lsw-bench, the benchmarks and the tests.

rpc: the JSON-RPC client of lsw's control socket (lswctl's, installed with it).
proc: lsw and lsw-host processes started, waited for and stopped with the checks a clean
exit promises; commands in network namespaces.
"""
