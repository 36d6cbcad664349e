// The serve protocol's codec (server/protocol.hpp) and request fields (server/request.hpp):
// round trips, and every way a frame, a field, a record list or a word list can be malformed.

#include "server/protocol.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "server/request.hpp"

using namespace swat::server;

namespace {

message decode_frame(const std::string& frame) {
  const frame_header h = decode_header(frame.substr(0, frame_header_bytes));
  EXPECT_EQ(h.length, frame.size() - frame_header_bytes);
  return decode_payload(h.type, std::string_view(frame).substr(frame_header_bytes));
}

}  // namespace

TEST(protocol, a_frame_has_the_documented_header) {
  const std::string frame = encode(message{message_type::notice, {}}.set("line", "hi"));
  // "SWAT", version 1, type 4, length 1 + 4 + 4 + 2 = 11, then the field.
  EXPECT_EQ(frame, std::string("SWAT\0\x01\0\x04\0\0\0\x0b\x04line\0\0\0\x02hi", 23));
}

TEST(protocol, messages_round_trip) {
  message m{message_type::request, {}};
  m.set("empty", "").set("binary", std::string("\0\xff\n", 3)).set(std::string(255, 'k'), std::string(70000, 'v'));
  const message back = decode_frame(encode(m));
  EXPECT_EQ(back.type, message_type::request);
  EXPECT_EQ(back.fields, m.fields);
  EXPECT_EQ(back.get("empty"), "");
  EXPECT_EQ(back.find("missing"), nullptr);
  EXPECT_THROW(back.get("missing"), protocol_error);
  EXPECT_TRUE(decode_frame(encode(message{message_type::hello, {}})).fields.empty());
  EXPECT_THROW(encode(message{message_type::hello, {}}.set(std::string(256, 'k'), "")), protocol_error);
}

TEST(protocol, malformed_frames_are_refused) {
  EXPECT_THROW(decode_header("GET / HTTP/1.1\r\n"), protocol_error);
  EXPECT_THROW(decode_header("SWAT"), protocol_error);  // short
  const frame_header h = decode_header(std::string("SWAT\0\x07\0\x01\xff\xff\xff\xff", 12));
  EXPECT_EQ(h.version, 7);
  EXPECT_EQ(h.type, 1);
  EXPECT_EQ(h.length, 0xffffffffu);
  EXPECT_THROW(decode_payload(0, ""), protocol_error);
  EXPECT_THROW(decode_payload(8, ""), protocol_error);
  const std::string payload = encode(message{message_type::hello, {}}.set("key", "value")).substr(frame_header_bytes);
  for (std::size_t cut = 1; cut < payload.size(); ++cut)  // every truncation
    EXPECT_THROW(decode_payload(1, payload.substr(0, cut)), protocol_error) << cut;
  EXPECT_THROW(decode_payload(1, payload + payload), protocol_error);  // a key twice
  EXPECT_NO_THROW(decode_payload(1, payload));
}

TEST(protocol, records_round_trip_and_are_checked) {
  std::vector<swat::sequence_record> records{{"q1", "first one", {0, 1, 2, 3, 4}}, {"q2", "", {}}};
  const std::string bytes = encode_records(records);
  const auto back = decode_records(bytes, swat::alphabet_kind::dna);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "q1");
  EXPECT_EQ(back[0].description, "first one");
  EXPECT_EQ(back[0].residues, records[0].residues);
  EXPECT_TRUE(back[1].residues.empty());
  for (std::size_t cut = 0; cut < bytes.size(); ++cut)
    EXPECT_THROW(decode_records(bytes.substr(0, cut), swat::alphabet_kind::dna), protocol_error) << cut;
  EXPECT_THROW(decode_records(bytes + "x", swat::alphabet_kind::dna), protocol_error);
  records[0].residues.push_back(5);  // not a DNA rank
  EXPECT_THROW(decode_records(encode_records(records), swat::alphabet_kind::dna), protocol_error);
  EXPECT_NO_THROW(decode_records(encode_records(records), swat::alphabet_kind::protein));
  records[1].name.clear();
  EXPECT_THROW(decode_records(encode_records(records), swat::alphabet_kind::protein), protocol_error);
  // A count far beyond what the bytes hold is refused before anything is reserved.
  EXPECT_THROW(decode_records(std::string("\xff\xff\xff\xff", 4), swat::alphabet_kind::dna), protocol_error);
}

TEST(protocol, words_round_trip) {
  const std::vector<std::string> words{"--matrix", "BLOSUM45", "", "a b"};
  EXPECT_EQ(split_words(join_words(words)), words);
  EXPECT_TRUE(split_words(join_words({})).empty());
  EXPECT_EQ(split_words(std::string("\0", 1)), std::vector<std::string>{""});
  EXPECT_THROW(split_words("no end"), protocol_error);
  EXPECT_THROW(join_words(std::vector<std::string>{std::string("a\0b", 3)}), protocol_error);
}

TEST(request, fields_round_trip) {
  swat::pipeline::align_options o;
  o.query_path = "q.fa";
  o.outfmt_text = "6 std score";
  o.outfmt = swat::output::parse_outfmt(o.outfmt_text);
  o.outfmt.sam_hit_only = true;
  o.max_hits = 7;
  o.max_hsps = 0;
  o.stats.min_score = -3;
  o.evalue_text = "1e-5";
  o.stats.evalue_given = true;
  o.stats.choice = swat::scoring::stats_choice::empirical;
  o.command_line = "swat-gpu align q.fa db.fa";
  o.strand_option = swat::pipeline::strand_choice::minus;
  o.scoring.match = 3;
  o.scoring.gap_open = 0;
  swat::sequence_set queries;
  queries.alphabet = swat::alphabet_kind::dna;
  queries.records = {{"q", "", {0, 1}}};
  const message m = make_request(o, queries);
  const search_request r = parse_request(decode_frame(encode(m)));
  EXPECT_EQ(r.options.query_path, "q.fa");
  EXPECT_EQ(r.queries.file, "q.fa");
  EXPECT_EQ(r.options.outfmt.columns, o.outfmt.columns);
  EXPECT_TRUE(r.options.outfmt.sam_hit_only);
  EXPECT_EQ(r.options.max_hits, 7u);
  EXPECT_EQ(r.options.max_hsps, 0u);
  EXPECT_EQ(r.options.stats.min_score, -3);
  EXPECT_EQ(r.options.stats.max_evalue, 1e-5);
  EXPECT_TRUE(r.options.stats.evalue_given);
  EXPECT_EQ(r.options.stats.choice, swat::scoring::stats_choice::empirical);
  EXPECT_EQ(r.options.command_line, o.command_line);
  EXPECT_EQ(r.options.strand_option, swat::pipeline::strand_choice::minus);
  EXPECT_EQ(r.options.scoring.match, 3);
  EXPECT_FALSE(r.options.scoring.mismatch);
  EXPECT_EQ(r.options.scoring.gap_open, 0);
  EXPECT_EQ(r.queries.records[0].residues, queries.records[0].residues);
  // A field missing or out of range is a malformed request; a bad format is align's usage error.
  for (const char* key : {"query", "records", "max_hits", "evalue", "command_line"}) {
    message cut = m;
    std::erase_if(cut.fields, [&](const auto& f) { return f.first == key; });
    EXPECT_THROW(parse_request(cut), protocol_error) << key;
  }
  message bad = m;
  for (auto& [k, v] : bad.fields)
    if (k == "max_hits") v = "0";
  EXPECT_THROW(parse_request(bad), protocol_error);
  bad = m;
  for (auto& [k, v] : bad.fields)
    if (k == "outfmt") v = "xml";
  EXPECT_THROW(parse_request(bad), swat::usage_error);
}
