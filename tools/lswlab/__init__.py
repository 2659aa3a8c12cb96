# SPDX-License-Identifier: BSD-3-Clause
"""lsw-lab: lsw's labs (tools/lsw-lab). Each scenario kind is a module with a run(scenario,
report, rundir, quick) that starts the processes, measures and checks."""
