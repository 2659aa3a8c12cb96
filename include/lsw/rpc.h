/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON-RPC 2.0 error codes answered by lsw. See control/rpc/RPC.md for every method. */
#ifndef LSW_RPC_H
#define LSW_RPC_H

/* The standard codes (JSON-RPC 2.0, section 5.1). */
#define LSW_RPC_PARSE_ERROR       -32700 /* not JSON */
#define LSW_RPC_INVALID_REQUEST   -32600 /* JSON, but not a request object (or too large) */
#define LSW_RPC_METHOD_NOT_FOUND  -32601
#define LSW_RPC_INVALID_PARAMS    -32602 /* error.data.errors lists [{path, message}] */
#define LSW_RPC_INTERNAL_ERROR    -32603

/* lsw's own, in the implementation-defined server error range. */
#define LSW_RPC_ERR_DEVICE        -32001 /* the DPDK device refused the operation */
#define LSW_RPC_ERR_TIMEOUT       -32002 /* the request was not completed in time */
#define LSW_RPC_ERR_IO            -32003 /* a file could not be read or written */
#define LSW_RPC_ERR_BUSY          -32004 /* what the request starts is running already */

#endif
