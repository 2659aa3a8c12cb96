/* SPDX-License-Identifier: BSD-3-Clause */
#include "lsw/log.h"

RTE_LOG_REGISTER_DEFAULT(lsw_logtype, INFO);
