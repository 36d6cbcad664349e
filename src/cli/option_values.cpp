// Typed option values (see option_values.hpp).

#include "cli/option_values.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/error.hpp"

namespace swat::cli {

long long integer_value(std::string_view option, const std::string& text, long long min, long long max) {
  errno = 0;
  char* end = nullptr;
  const long long v = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw usage_error(std::string(option) + ": '" + text + "' is not an integer");
  if (v < min || v > max)
    throw usage_error(std::string(option) + ": " + text + " is outside " + std::to_string(min) + " … " +
                      std::to_string(max));
  return v;
}

double real_value(std::string_view option, const std::string& text, double min, double max) {
  char* end = nullptr;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
    throw usage_error(std::string(option) + ": '" + text + "' is not a number");
  if (v < min || v > max) {
    std::ostringstream range;
    range << min << " … " << max;
    throw usage_error(std::string(option) + ": " + text + " is outside " + range.str());
  }
  return v;
}

std::vector<std::string> word_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<long long> integer_list(std::string_view option, const std::string& text, long long min,
                                    long long max) {
  std::vector<long long> out;
  for (const std::string& item : word_list(text)) out.push_back(integer_value(option, item, min, max));
  return out;
}

std::vector<std::string> split_attached_values(const std::vector<std::string>& args, std::string_view value_options) {
  std::vector<std::string> out;
  out.reserve(args.size());
  const auto takes_value = [&](char c) { return value_options.find(c) != std::string_view::npos; };
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  bool value_next = false, positional = false;
  for (const std::string& a : args) {
    const bool group = !positional && !value_next && a.size() > 2 && a[0] == '-' && a[1] != '-';
    value_next = false;
    if (a == "--") positional = true;
    if (!group) {
      out.push_back(a);
      value_next = !positional && a.size() == 2 && a[0] == '-' && takes_value(a[1]);
      continue;
    }
    // Flags, then the first option that takes a value: the rest of the word is its value.
    std::size_t k = 1;
    while (k < a.size() && alnum(a[k]) && !takes_value(a[k])) ++k;
    if (k < a.size() && takes_value(a[k]) && k + 1 < a.size()) {
      out.push_back(a.substr(0, k + 1));
      out.push_back(a.substr(k + 1));
    } else {
      out.push_back(a);
      value_next = k + 1 == a.size() && takes_value(a[k]);  // "-qo": the next word is -o's value
    }
  }
  return out;
}

std::vector<const char*> argv_of(const char* program, const std::vector<std::string>& args) {
  std::vector<const char*> argv{program};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return argv;
}

void reject_unmatched(const std::vector<std::string>& unmatched) {
  if (!unmatched.empty()) throw usage_error("unexpected argument '" + unmatched.front() + "'");
}

std::string command_line(std::string_view program, const std::vector<std::string>& args) {
  // Arguments with spaces or shell characters are single-quoted, as a shell would take them back.
  std::string s(program);
  for (const std::string& a : args) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789-_./=:,+@%") == std::string::npos;
    s += ' ';
    if (plain) {
      s += a;
      continue;
    }
    s += '\'';
    for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

}  // namespace swat::cli
