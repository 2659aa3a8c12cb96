# SPDX-License-Identifier: BSD-3-Clause
"""lsw-bench: the IETF BMWG AI-fabric benchmark on lsw-lab's fabrics (tools/lsw-bench)."""
