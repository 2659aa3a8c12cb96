/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a RoCE NIC moves RDMA traffic without the kernel (and consumes PFC in hardware), the
 * BPF program sees nothing of it: the agent reads the NIC's own counters instead
 * (XDP and tc BPF programs), the RDMA device's hw_counters and ethtool's per-priority pause
 * counters, and says where each came from.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "agent_user.h"

/* The RDMA device whose netdev is @iface: /sys/class/infiniband/DEV/device/net/IFACE. */
static void
rdma_counters(const char *iface, json_t *out)
{
	DIR *d = opendir("/sys/class/infiniband");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[512];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net/%s", e->d_name,
			 iface);
		if (access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters",
			 e->d_name);
		DIR *c = opendir(path);
		struct dirent *f;
		json_t *vals = json_object();
		while (c != NULL && (f = readdir(c)) != NULL) {
			char file[800];
			unsigned long long v;
			if (f->d_name[0] == '.')
				continue;
			snprintf(file, sizeof(file), "%s/%s", path, f->d_name);
			FILE *fp = fopen(file, "r");
			if (fp != NULL && fscanf(fp, "%llu", &v) == 1)
				json_object_set_new(vals, f->d_name, json_integer((json_int_t)v));
			if (fp != NULL)
				fclose(fp);
		}
		if (c != NULL)
			closedir(c);
		json_object_set_new(out, "hw_counters", json_pack("{s:s, s:o}", "source", path,
								  "counters", vals));
	}
	closedir(d);
}

/* ethtool -S @iface, keeping the per-priority pause counters (mlx5: rx_prio3_pause, ...). */
static void
ethtool_pause(const char *iface, json_t *out)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifreq ifr = {0};
	struct ethtool_sset_info *info = calloc(1, sizeof(*info) + sizeof(__u32));
	json_t *vals = json_object();

	if (fd < 0 || info == NULL)
		goto done;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_STATS;
	ifr.ifr_data = (void *)info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) != 0 || !(info->sset_mask & (1ull << ETH_SS_STATS)))
		goto done;
	__u32 n = info->data[0];
	struct ethtool_gstrings *names = calloc(1, sizeof(*names) + n * ETH_GSTRING_LEN);
	struct ethtool_stats *stats = calloc(1, sizeof(*stats) + n * sizeof(__u64));
	if (names == NULL || stats == NULL) {
		free(names);
		free(stats);
		goto done;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	ifr.ifr_data = (void *)names;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
		stats->cmd = ETHTOOL_GSTATS;
		stats->n_stats = n;
		ifr.ifr_data = (void *)stats;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
			for (__u32 i = 0; i < n; i++) {
				char name[ETH_GSTRING_LEN + 1];
				memcpy(name, names->data + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
				name[ETH_GSTRING_LEN] = '\0';
				if (strstr(name, "prio") && strstr(name, "pause"))
					json_object_set_new(vals, name,
						json_integer((json_int_t)stats->data[i]));
			}
	}
	free(names);
	free(stats);
done:
	if (json_object_size(vals) > 0)
		json_object_set_new(out, "ethtool", json_pack("{s:s, s:o}",
							      "source", "ethtool -S (SIOCETHTOOL)",
							      "counters", vals));
	else
		json_decref(vals);
	free(info);
	if (fd >= 0)
		close(fd);
}

json_t *
agent_nic_counters(const char *iface)
{
	json_t *out = json_object();

	rdma_counters(iface, out);
	ethtool_pause(iface, out);
	return out;
}
