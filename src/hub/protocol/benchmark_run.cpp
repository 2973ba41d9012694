// Typed parsing and canonical rendering of the benchmark run document (see benchmark_run.h).
#include "hub/protocol/benchmark_run.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "hub/protocol/requests.h"

namespace kb::hub::protocol {

namespace {

using nlohmann::json;


// The members of one JSON object, each read with its type and range checked; `where` names the
// object in messages ("results[2]").
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  std::string name(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }

  const json* find(const std::string& key) const {
    auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  util::Result<std::optional<std::string>> optional_string(const std::string& key) const {
    const json* value = find(key);
    if (!value) return std::optional<std::string>();
    if (!value->is_string()) return field_error(name(key), "expected a string");
    const auto& text = value->get_ref<const std::string&>();
    if (text.size() > kMaxBenchmarkString) {
      return field_error(name(key), "longer than " + std::to_string(kMaxBenchmarkString) + " bytes");
    }
    return std::optional<std::string>(text);
  }

  util::Result<std::string> string(const std::string& key) const {
    return required(optional_string(key), key, "string");
  }

  util::Result<std::optional<double>> optional_number(const std::string& key) const {
    const json* value = find(key);
    if (!value) return std::optional<double>();
    const std::string expected = "expected a finite number >= 0";
    if (!value->is_number()) return field_error(name(key), expected);
    double number = value->get<double>();
    if (!std::isfinite(number) || number < 0) return field_error(name(key), expected);
    return std::optional<double>(number);
  }

  util::Result<double> number(const std::string& key) const { return required(optional_number(key), key, "number"); }

  util::Result<int64_t> integer(const std::string& key, int64_t minimum) const {
    const json* value = find(key);
    const std::string expected = "expected an integer >= " + std::to_string(minimum);
    if (!value) return field_error(name(key), "required integer is missing");
    if (value->is_number_unsigned()) {
      auto number = value->get<uint64_t>();
      if (number > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
          static_cast<int64_t>(number) < minimum) {
        return field_error(name(key), expected);
      }
      return static_cast<int64_t>(number);
    }
    if (!value->is_number_integer() || value->get<int64_t>() < minimum) return field_error(name(key), expected);
    return value->get<int64_t>();
  }

  util::Result<std::optional<bool>> optional_bool(const std::string& key) const {
    const json* value = find(key);
    if (!value) return std::optional<bool>();
    if (!value->is_boolean()) return field_error(name(key), "expected true, false or null");
    return std::optional<bool>(value->get<bool>());
  }

  // The member `key`, an object, read by `parse` (a function of its Fields).
  template <typename Parse>
  auto object(const std::string& key, Parse parse) const -> decltype(parse(*this)) {
    const json* value = find(key);
    if (!value || !value->is_object()) return field_error(name(key), "expected an object");
    return parse(Fields(*value, name(key)));
  }

 private:
  // The value of an optional_* reader, which must be present.
  template <typename T>
  util::Result<T> required(util::Result<std::optional<T>> value, const std::string& key, const std::string& what) const {
    if (!value) return std::move(value).error();
    if (!*value) return field_error(name(key), "required " + what + " is missing");
    return std::move(**value);
  }

  const json& object_;
  std::string where_;
};

// Assigns a parsed member or returns its error from the enclosing function.
#define KB_FIELD(target, expression)                               \
  do {                                                             \
    auto kb_field_value = (expression);                            \
    if (!kb_field_value) return std::move(kb_field_value).error(); \
    (target) = std::move(*kb_field_value);                         \
  } while (false)

util::Result<BenchmarkKernel> parse_kernel(const Fields& fields) {
  BenchmarkKernel kernel;
  KB_FIELD(kernel.repo_id, fields.string("repo_id"));
  if (auto s = check_repo_id(kernel.repo_id); !s) return field_error(fields.name("repo_id"), s.error().message);
  KB_FIELD(kernel.revision, fields.string("revision"));
  if (auto s = check_revision(kernel.revision); !s) return field_error(fields.name("revision"), s.error().message);
  KB_FIELD(kernel.variant, fields.string("variant"));
  return kernel;
}

util::Result<BenchmarkMachine> parse_machine(const Fields& fields) {
  BenchmarkMachine machine;
  KB_FIELD(machine.cpu, fields.string("cpu"));
  KB_FIELD(machine.gpu, fields.optional_string("gpu"));
  KB_FIELD(machine.driver, fields.optional_string("driver"));
  KB_FIELD(machine.cuda, fields.optional_string("cuda"));
  KB_FIELD(machine.torch, fields.string("torch"));
  KB_FIELD(machine.python, fields.string("python"));
  KB_FIELD(machine.platform, fields.string("platform"));
  return machine;
}

util::Result<BenchmarkSettings> parse_settings(const Fields& fields) {
  BenchmarkSettings settings;
  KB_FIELD(settings.iterations, fields.integer("iterations", 1));
  KB_FIELD(settings.warmup, fields.integer("warmup", 0));
  std::string timer;
  KB_FIELD(timer, fields.string("timer"));
  if (timer == to_string(BenchmarkTimer::cuda_events)) {
    settings.timer = BenchmarkTimer::cuda_events;
  } else if (timer == to_string(BenchmarkTimer::monotonic)) {
    settings.timer = BenchmarkTimer::monotonic;
  } else {
    return field_error(fields.name("timer"), "expected \"cuda-events\" or \"monotonic\"");
  }
  return settings;
}

util::Result<BenchmarkDevice> parse_device(const Fields& fields) {
  BenchmarkDevice device;
  KB_FIELD(device.copy_bandwidth_bytes_per_s, fields.optional_number("copy_bandwidth_bytes_per_s"));
  KB_FIELD(device.peak_flops_per_s, fields.optional_number("peak_flops_per_s"));
  KB_FIELD(device.peak_source, fields.optional_string("peak_source"));
  return device;
}

// a <= b, allowing the rounding of statistics computed in floating point.
bool at_most(double a, double b) { return a <= b + 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

util::Result<BenchmarkResult> parse_result(const Fields& fields) {
  BenchmarkResult result;
  KB_FIELD(result.benchmark, fields.string("benchmark"));
  KB_FIELD(result.case_name, fields.string("case"));
  KB_FIELD(result.verified, fields.optional_bool("verified"));
  KB_FIELD(result.unit, fields.string("unit"));
  if (result.unit != "ms") return field_error(fields.name("unit"), "expected \"ms\"");
  KB_FIELD(result.mean, fields.number("mean"));
  KB_FIELD(result.std, fields.number("std"));
  KB_FIELD(result.min, fields.number("min"));
  KB_FIELD(result.max, fields.number("max"));
  KB_FIELD(result.q1, fields.number("q1"));
  KB_FIELD(result.median, fields.number("median"));
  KB_FIELD(result.q3, fields.number("q3"));
  KB_FIELD(result.outliers, fields.integer("outliers", 0));
  KB_FIELD(result.samples, fields.integer("samples", 1));
  KB_FIELD(result.bytes, fields.optional_number("bytes"));
  KB_FIELD(result.flops, fields.optional_number("flops"));
  KB_FIELD(result.bandwidth_fraction, fields.optional_number("bandwidth_fraction"));
  KB_FIELD(result.peak_fraction, fields.optional_number("peak_fraction"));
  // The order statistics of one sample set (up to rounding): anything else is not a measurement.
  if (!(at_most(result.min, result.q1) && at_most(result.q1, result.median) && at_most(result.median, result.q3) &&
        at_most(result.q3, result.max))) {
    return field_error(fields.name("median"), "expected min <= q1 <= median <= q3 <= max");
  }
  if (!at_most(result.min, result.mean) || !at_most(result.mean, result.max)) {
    return field_error(fields.name("mean"), "expected a value between min and max");
  }
  if (result.outliers > result.samples) return field_error(fields.name("outliers"), "more outliers than samples");
  return result;
}

nlohmann::ordered_json optional_value(const auto& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string_view to_string(BenchmarkTimer timer) {
  return timer == BenchmarkTimer::cuda_events ? "cuda-events" : "monotonic";
}

util::Result<BenchmarkRun> parse_benchmark_run(std::string_view body) {
  if (body.size() > kMaxBenchmarkBody) {
    return field_error("body", "larger than " + std::to_string(kMaxBenchmarkBody) + " bytes");
  }
  json doc;
  try {
    doc = json::parse(
        body.begin(), body.end(),
        [](int depth, json::parse_event_t, json&) {
          if (depth > kMaxJsonDepth) throw std::length_error("depth");
          return true;
        },
        true);
  } catch (const std::length_error&) {
    return field_error("body", "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const json::exception&) {
    return field_error("body", "not valid JSON");
  }
  if (!doc.is_object()) return field_error("body", "expected a JSON object");
  Fields top(doc, "");
  std::string format;
  KB_FIELD(format, top.string("format"));
  if (format != kBenchmarkFormat) return field_error("format", "expected \"" + std::string(kBenchmarkFormat) + "\"");

  BenchmarkRun run;
  KB_FIELD(run.kernel, top.object("kernel", parse_kernel));
  KB_FIELD(run.machine, top.object("machine", parse_machine));
  KB_FIELD(run.settings, top.object("settings", parse_settings));
  KB_FIELD(run.device, top.object("device", parse_device));

  auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) return field_error("results", "expected an array");
  if (results->size() > kMaxBenchmarkResults) {
    return field_error("results", "more than " + std::to_string(kMaxBenchmarkResults) + " entries");
  }
  for (size_t i = 0; i < results->size(); ++i) {
    std::string where = "results[" + std::to_string(i) + "]";
    if (!(*results)[i].is_object()) return field_error(where, "expected an object");
    auto result = parse_result(Fields((*results)[i], where));
    if (!result) return std::move(result).error();
    run.results.push_back(std::move(*result));
  }
  return run;
}

std::string render_benchmark_run(const BenchmarkRun& run) {
  using ordered = nlohmann::ordered_json;
  ordered results = ordered::array();
  for (const auto& r : run.results) {
    results.push_back({{"benchmark", r.benchmark},
                       {"case", r.case_name},
                       {"verified", optional_value(r.verified)},
                       {"unit", r.unit},
                       {"mean", r.mean},
                       {"std", r.std},
                       {"min", r.min},
                       {"max", r.max},
                       {"q1", r.q1},
                       {"median", r.median},
                       {"q3", r.q3},
                       {"outliers", r.outliers},
                       {"samples", r.samples},
                       {"bytes", optional_value(r.bytes)},
                       {"flops", optional_value(r.flops)},
                       {"bandwidth_fraction", optional_value(r.bandwidth_fraction)},
                       {"peak_fraction", optional_value(r.peak_fraction)}});
  }
  const auto& m = run.machine;
  ordered doc = {
      {"format", kBenchmarkFormat},
      {"kernel", {{"repo_id", run.kernel.repo_id}, {"revision", run.kernel.revision}, {"variant", run.kernel.variant}}},
      {"machine",
       {{"cpu", m.cpu},
        {"gpu", optional_value(m.gpu)},
        {"driver", optional_value(m.driver)},
        {"cuda", optional_value(m.cuda)},
        {"torch", m.torch},
        {"python", m.python},
        {"platform", m.platform}}},
      {"settings",
       {{"iterations", run.settings.iterations},
        {"warmup", run.settings.warmup},
        {"timer", to_string(run.settings.timer)}}},
      {"device",
       {{"copy_bandwidth_bytes_per_s", optional_value(run.device.copy_bandwidth_bytes_per_s)},
        {"peak_flops_per_s", optional_value(run.device.peak_flops_per_s)},
        {"peak_source", optional_value(run.device.peak_source)}}},
      {"results", results}};
  return doc.dump();
}

}  // namespace kb::hub::protocol
