// docs/swat-gpu.1 against the built binary (issue 34), so that the manual and --help cannot drift
// apart: every option that `swat-gpu align --help`, `serve --help` and each `bench WHAT --help` of
// this build lists is an entry of the page whose text holds the help's description and default
// word for word (a benchmark's options in its own `bench WHAT` subsection); the rest of those
// help texts (conventions, output formats, columns, E-values, the server's paragraph), every
// benchmark's summary and every --option any help mentions appear in the page too. The page
// renders without a warning under `groff -man -ww -z` (the rendering half skips where groff is
// not installed; the coverage half never does).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"

namespace {

using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;

const std::string binary = SWAT_BINARY;
const std::string page_path = std::string(SWAT_SOURCE_DIR) + "/docs/swat-gpu.1";

//! Runs of whitespace as one space, no space at either end.
std::string squeeze(const std::string& s) {
  std::string r;
  for (const char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!r.empty() && r.back() != ' ') r += ' ';
    } else {
      r += c;
    }
  }
  if (!r.empty() && r.back() == ' ') r.pop_back();
  return r;
}

//! The text a troff line shows: escapes resolved, font changes dropped. An escape the page may
//! not use (one this reader does not know) fails the test rather than compare wrong text.
std::string troff_text(const std::string& line, int line_no) {
  static const std::vector<std::pair<std::string, std::string>> escapes = {
      {"\\-", "-"},        {"\\e", "\\"},   {"\\&", ""},      {"\\:", ""},      {"\\%", ""},
      {"\\(mu", "\u00d7"}, {"\\(en", "\u2013"}, {"\\(em", "\u2014"}, {"\\(aq", "'"}, {"\\(dq", "\""},
      {"\\[u2026]", "\u2026"}, {"\\fB", ""}, {"\\fI", ""},      {"\\fR", ""},     {"\\fP", ""},
      {"\\ ", " "},        {"\\~", " "}};
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] != '\\') {
      out += line[i++];
      continue;
    }
    bool known = false;
    for (const auto& [from, to] : escapes)
      if (line.compare(i, from.size(), from) == 0) {
        out += to;
        i += from.size();
        known = true;
        break;
      }
    if (!known) {
      ADD_FAILURE() << page_path << ":" << line_no << ": escape this test does not read: " << line.substr(i, 6);
      ++i;
    }
  }
  return out;
}

//! A macro line's arguments, double quotes grouping.
std::vector<std::string> macro_args(const std::string& rest) {
  std::vector<std::string> args;
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    if (i >= rest.size()) break;
    std::string a;
    if (rest[i] == '"') {
      ++i;
      while (i < rest.size() && rest[i] != '"') a += rest[i++];
      ++i;
    } else {
      while (i < rest.size() && rest[i] != ' ') a += rest[i++];
    }
    args.push_back(a);
  }
  return args;
}

struct page_item {
  std::string tag;   //!< the .TP line: "-t, --threads N"
  std::string body;  //!< the text under it, to the next .TP, .PP or heading
};

struct page_section {
  std::string title;  //!< .SH or .SS title: "ENGINE OPTIONS", "bench cpu"
  std::string text;   //!< all its text
  std::vector<page_item> items;
};

struct man_page {
  std::string text;  //!< the whole page's text, squeezed
  std::vector<page_section> sections;

  const page_section* section(const std::string& title) const {
    for (const page_section& s : sections)
      if (s.title == title) return &s;
    return nullptr;
  }
};

man_page read_page(const std::string& source) {
  man_page page;
  page.sections.push_back({"(top)", "", {}});
  std::istringstream in(source);
  std::string line;
  int line_no = 0;
  bool tag_next = false;
  page_item* item = nullptr;
  std::string all;
  const auto add_text = [&](const std::string& text) {
    all += text + " ";
    page_section& s = page.sections.back();
    s.text += text + " ";
    if (tag_next) {
      s.items.push_back({text, ""});
      item = &s.items.back();
      tag_next = false;
    } else if (item) {
      item->body += text + " ";
    }
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.rfind(".\\\"", 0) == 0) continue;  // comment
    if (line.empty() || line[0] != '.') {
      add_text(troff_text(line, line_no));
      continue;
    }
    const std::size_t space = line.find(' ');
    const std::string name = line.substr(1, space == std::string::npos ? std::string::npos : space - 1);
    const std::vector<std::string> args = macro_args(space == std::string::npos ? "" : line.substr(space + 1));
    std::string joined;
    const bool alternating = name.size() == 2 && std::string("BIR").find(name[0]) != std::string::npos &&
                             std::string("BIR").find(name[1]) != std::string::npos;
    for (const std::string& a : args) joined += (joined.empty() || alternating ? "" : " ") + a;
    if (name == "SH" || name == "SS") {
      page.sections.push_back({squeeze(troff_text(joined, line_no)), "", {}});
      item = nullptr;
      tag_next = false;
      all += troff_text(joined, line_no) + " ";
    } else if (name == "TP") {
      tag_next = true;
      item = nullptr;
    } else if (name == "PP" || name == "LP" || name == "P") {
      item = nullptr;
      tag_next = false;
    } else if (name == "B" || name == "I" || alternating) {
      add_text(troff_text(joined, line_no));
    } else if (name != "TH" && name != "br" && name != "RS" && name != "RE" && name != "EX" && name != "EE" &&
               name != "nh" && name != "ad" && name != "sp") {
      ADD_FAILURE() << page_path << ":" << line_no << ": request this test does not read: ." << name;
    }
  }
  page.text = squeeze(all);
  for (page_section& s : page.sections) {
    s.text = squeeze(s.text);
    for (page_item& i : s.items) i.tag = squeeze(i.tag), i.body = squeeze(i.body);
  }
  return page;
}

struct help_option {
  std::vector<std::string> names;  //!< "-t", "--threads"
  std::string description;         //!< squeezed, with cxxopts' "(default: …)"
};

struct help_text {
  std::vector<help_option> options;
  std::vector<std::string> prose;  //!< the other lines: description, conventions, formats, …
};

//! Splits cxxopts' --help: option lines ("  -t, --threads arg   CPU threads …" or
//! "      --device arg  …") and their wrapped continuation lines, which cxxopts breaks after a
//! space it keeps or inside a word, so the pieces join as they are; everything else is prose.
help_text read_help(const std::string& help) {
  static const std::regex option_line(R"(^(?:  (-[A-Za-z0-9]), |      )--([A-Za-z0-9][A-Za-z0-9-]*)(?: arg)?(?:  +(.*))?$)");
  help_text h;
  std::istringstream in(help);
  std::string line;
  bool in_option = false;
  int index = 0;
  while (std::getline(in, line)) {
    ++index;
    std::smatch m;
    if (std::regex_match(line, m, option_line)) {
      help_option o;
      if (m[1].matched) o.names.push_back(m[1]);
      o.names.push_back("--" + m[2].str());
      o.description = m[3].matched ? m[3].str() : "";
      h.options.push_back(o);
      in_option = true;
      continue;
    }
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) {
      in_option = false;
      continue;
    }
    if (in_option && first >= 8) {
      h.options.back().description += line.substr(first);
      continue;
    }
    in_option = false;
    if (index == 2 || index == 3) continue;  // "Usage:" and the usage line
    if (first == 1 && line.size() > 9 && line.compare(line.size() - 9, 9, " options:") == 0) continue;  // group
    if (first == 0 && line.back() == ':') continue;  // heading: "Conventions:"
    // Columns split at runs of two spaces: a label ("Scores", "qseqid") and its text.
    static const std::regex gap("  +");
    for (std::sregex_token_iterator t(line.begin(), line.end(), gap, -1), end; t != end; ++t)
      if (const std::string piece = squeeze(*t); !piece.empty()) h.prose.push_back(piece);
  }
  for (help_option& o : h.options) o.description = squeeze(o.description);
  return h;
}

std::string help_of(const std::string& args) {
  temp_dir dir;
  const auto r = run_shell(binary + " " + args + " --help", dir);
  EXPECT_EQ(r.exit_code, 0) << args << " --help\n" << r.err;
  return r.out;
}

//! Every --option named anywhere in a text.
std::vector<std::string> long_options_in(const std::string& text) {
  static const std::regex long_option(R"(--[a-z0-9][a-z0-9-]*)");
  std::vector<std::string> found;
  for (std::sregex_iterator i(text.begin(), text.end(), long_option), end; i != end; ++i) found.push_back(i->str());
  return found;
}

bool tag_names(const std::string& tag, const std::string& name) {
  std::string spaced = tag;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream words(spaced);
  for (std::string w; words >> w;)
    if (w == name) return true;
  return false;
}

//! The option has an entry among items whose text holds its help description word for word; a
//! default that is a path (a benchmark's data, absolute in this build) is matched by its last two
//! parts, which the page gives under DATA/.
void expect_entry(const help_option& o, const std::vector<const page_item*>& items, const std::string& where) {
  std::string description = o.description, path_tail;
  if (const std::size_t d = description.rfind(" (default: /"); d != std::string::npos) {
    const std::string path = description.substr(d + 11, description.size() - d - 12);
    const std::size_t last = path.rfind('/'), before = path.rfind('/', last - 1);
    path_tail = path.substr(before + 1);
    description.resize(d);
  }
  bool entry = false, words = false;
  for (const page_item* i : items) {
    if (!std::all_of(o.names.begin(), o.names.end(), [&](const std::string& n) { return tag_names(i->tag, n); }))
      continue;
    entry = true;
    if (i->body.find(description) != std::string::npos &&
        (path_tail.empty() || i->body.find(path_tail) != std::string::npos))
      words = true;
  }
  EXPECT_TRUE(entry) << where << ": no entry for " << o.names.back() << " in " << page_path;
  EXPECT_TRUE(!entry || words) << where << ": the entry for " << o.names.back() << " does not say, as --help does:\n  "
                               << o.description << (path_tail.empty() ? "" : "\n  (path default: …/" + path_tail + ")");
}

class manpage : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(page_path)) << page_path;
    page = read_page(read_file(page_path));
  }
  std::vector<const page_item*> all_items() const {
    std::vector<const page_item*> items;
    for (const page_section& s : page.sections)
      for (const page_item& i : s.items) items.push_back(&i);
    return items;
  }
  void expect_prose(const help_text& h, const std::string& scope, const std::string& where) const {
    for (const std::string& piece : h.prose)
      EXPECT_NE(scope.find(piece), std::string::npos) << where << " --help says, and " << page_path << " does not:\n  " << piece;
  }
  man_page page;
};

TEST_F(manpage, lists_every_option_of_align_serve_and_makedb_with_the_help_words) {
  for (const std::string command : {"align", "serve", "makedb"}) {
    const help_text h = read_help(help_of(command));
    ASSERT_GT(h.options.size(), 5u) << command << " --help: no options read";
    for (const help_option& o : h.options) expect_entry(o, all_items(), command);
    expect_prose(h, page.text, command);
  }
}

TEST_F(manpage, lists_every_benchmark_and_its_options) {
  temp_dir dir;
  const auto r = run_shell(binary + " bench --help", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  static const std::regex bench_line(R"(^  ([a-z0-9_-]+) +(.*?)(?:   \[GPU\])?$)");
  std::istringstream in(r.out);
  int benches = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, bench_line)) continue;
    ++benches;
    const std::string name = m[1], title = "bench " + name;
    const page_section* section = page.section(title);
    EXPECT_NE(section, nullptr) << page_path << " has no subsection \"" << title << "\"";
    if (!section) continue;
    EXPECT_NE(section->text.find(squeeze(m[2])), std::string::npos) << title << ": bench --help says " << m[2];
    const help_text h = read_help(help_of("bench " + name));
    std::vector<const page_item*> items;
    for (const page_item& i : section->items) items.push_back(&i);
    for (const help_option& o : h.options)
      if (o.names.back() != "--help") expect_entry(o, items, title);
    expect_prose(h, section->text, title);
  }
  EXPECT_GE(benches, 3) << "bench --help listed no benchmarks:\n" << r.out;
}

TEST_F(manpage, names_every_option_any_help_mentions) {
  temp_dir dir;
  std::string helps = run_shell(binary + " --help", dir).out + help_of("align") + help_of("serve");
  for (const std::string& o : long_options_in(helps))
    EXPECT_NE(page.text.find(o), std::string::npos) << o << " is in a --help text, not in " << page_path;
}

TEST_F(manpage, has_the_sections_of_a_manual) {
  for (const char* title : {"NAME", "SYNOPSIS", "DESCRIPTION", "INPUT OPTIONS", "SCORING OPTIONS", "ENGINE OPTIONS",
                            "OUTPUT OPTIONS", "SERVER OPTIONS", "BENCHMARKS", "OUTPUT FORMATS", "E-VALUES",
                            "CONVENTIONS", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES"})
    EXPECT_NE(page.section(title), nullptr) << page_path << " has no section " << title;
  EXPECT_NE(page.text.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST_F(manpage, renders_without_warnings) {
  temp_dir dir;
  if (run_shell("command -v groff", dir).exit_code != 0) GTEST_SKIP() << "groff is not installed";
  for (const std::string device : {"", " -Tutf8"}) {  // groff's default device, and man's on a terminal
    const auto r = run_shell("groff -man -ww -z" + device + " '" + page_path + "'", dir);
    EXPECT_EQ(r.exit_code, 0) << "groff -man -ww -z" << device << "\n" << r.err;
    EXPECT_EQ(r.err, "") << "groff -man -ww -z" << device;
  }
}

}  // namespace
