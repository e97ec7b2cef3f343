// The readers of the top-level sections, one per key of the config file. config.cc lists them in
// its key table; a new section is one more reader here and one more row there. Internal to the
// config library.
#pragma once

#include "common/result.h"
#include "config/config.h"
#include "config/yaml_cursor.h"

namespace gpugate::config {

// config_server.cc: the server section, the HTTPS server's deadlines.
Status ReadServer(const Cursor& value, Config& out);

// config_tls.cc: the tls section.
Status ReadTls(const Cursor& value, Config& out);

// config_policy.cc: the keys that fill policy::Settings.
Status ReadExemptNamespaces(const Cursor& value, Config& out);
Status ReadResources(const Cursor& value, Config& out);
Status ReadMutation(const Cursor& value, Config& out);
Status ReadSecurity(const Cursor& value, Config& out);

// config_modes.cc: the modes section (policy::ModeSettings).
Status ReadModes(const Cursor& value, Config& out);

// config_cluster.cc: the cluster section.
Status ReadCluster(const Cursor& value, Config& out);

// config_audit.cc: the audit section, what `gpugate audit` lists.
Status ReadAudit(const Cursor& value, Config& out);

// config_quota.cc: the quota section. It names managed resources, so it is read after every
// other section (`out.policy` is complete), whatever the order of keys in the file.
Status ReadQuota(const Cursor& value, Config& out);

// config_quota.cc: a limit's name, as quota.namespaces and usage.budgets write it: a managed
// resource or a figure from quota.weights, either optionally "@flavor" of quota.flavors.
Status CheckLimitName(const Cursor& keyAt, const std::string& name,
                      const policy::Settings& settings, const quota::QuotaConfig& quota);

// config_usage.cc: the usage section (time zone, history, GPU-hour budgets). Its limits name
// resources, figures and flavors, so it is read after the quota section.
Status ReadUsage(const Cursor& value, Config& out);

// config_modes.cc: a namespace name in which '*' stands for any run of characters.
bool IsNamespacePattern(std::string_view s);

// config_flavors.cc: quota.flavors, and quota.defaultFlavors naming them.
Status ReadFlavors(const Cursor& value, std::vector<policy::Flavor>& out);
Status ReadDefaultFlavors(const Cursor& value, const std::vector<policy::Flavor>& flavors,
                          std::map<std::string, std::string, std::less<>>& out);

}  // namespace gpugate::config
