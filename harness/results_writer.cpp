#include "harness/results_writer.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace optbench {

ResultsWriter::ResultsWriter(std::string path, nlohmann::json environment, nlohmann::json config)
    : path_(std::move(path)) {
  doc_ = {{"schema", kSchemaName},
          {"schema_version", kSchemaVersion},
          {"status", "running"},
          {"environment", std::move(environment)},
          {"config", std::move(config)},
          {"experiments", nlohmann::json::array()}};
  flush();
}

std::size_t ResultsWriter::begin_experiment(nlohmann::json info) {
  info["status"] = "running";
  info["cases"] = nlohmann::json::array();
  doc_["experiments"].push_back(std::move(info));
  flush();
  return doc_["experiments"].size() - 1;
}

void ResultsWriter::add_case(std::size_t experiment, nlohmann::json result) {
  doc_["experiments"].at(experiment)["cases"].push_back(std::move(result));
  flush();
}

void ResultsWriter::end_experiment(std::size_t experiment, const std::string& status, const std::string& reason,
                                   double wall_s) {
  auto& e = doc_["experiments"].at(experiment);
  e["status"] = status;
  if (!reason.empty()) e["reason"] = reason;
  if (wall_s >= 0) e["wall_s"] = wall_s;
  flush();
}

void ResultsWriter::set_experiment_field(std::size_t experiment, const std::string& key, nlohmann::json value) {
  doc_["experiments"].at(experiment)[key] = std::move(value);
  flush();
}

void ResultsWriter::finish(const std::string& status) {
  doc_["status"] = status;
  flush();
}

void ResultsWriter::flush() {
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write results file '" + tmp + "'");
    // Non-finite numbers have no JSON spelling; nlohmann writes them as null,
    // which the schema allows wherever a statistic may be undefined.
    f << doc_.dump(1) << '\n';
    if (!f.flush()) throw std::runtime_error("cannot write results file '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot move results into '" + path_ + "'");
}

}  // namespace optbench
