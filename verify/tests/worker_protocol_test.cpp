// The verify worker's messages: every kind survives serialise + parse with its fields, one
// line each, and lines that are not messages are rejected.
#include <gtest/gtest.h>

#include "codec/worker_protocol.hpp"

using namespace rope2d::verify::protocol;
using rope2d::verify::Cause;
using rope2d::verify::Disposition;
using rope2d::ref::Dtype;

namespace {

Message round_trip(const Message& m) {
  const std::string line = serialise(m);
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  const std::optional<Message> back = parse(line);
  EXPECT_TRUE(back.has_value()) << line;
  return back.value_or(Error{"unparsed"});
}

}  // namespace

TEST(WorkerProtocol, EveryMessageRoundTrips) {
  const End end{"fused:layout/bf16/2x773", "layout", Dtype::bf16, Disposition::incorrect, "line one\nline \"two\"", Cause::integrity,
                {2, 773, 128}};
  const End e = std::get<End>(round_trip(end));
  EXPECT_EQ(e.name, end.name);
  EXPECT_EQ(e.set, end.set);
  EXPECT_EQ(e.dtype, end.dtype);
  EXPECT_EQ(e.disposition, end.disposition);
  EXPECT_EQ(e.summary, end.summary);
  EXPECT_EQ(e.cause, end.cause);
  EXPECT_EQ(e.shape, end.shape);
  // A cause that contradicts the disposition is not a message of the protocol.
  EXPECT_FALSE(parse(serialise(End{"x", "randn", Dtype::bf16, Disposition::passed, "", Cause::timeout})).has_value());
  // A set of no one dtype (the run's startup) travels as "" and comes back as none.
  EXPECT_FALSE(std::get<End>(round_trip(End{"startup", "", std::nullopt, Disposition::failed, "died", Cause::runtime})).dtype);
  const Start s = std::get<Start>(round_trip(Start{"odd/fp16/n=7+1", 41, 156}));
  EXPECT_EQ(s.name, "odd/fp16/n=7+1");
  EXPECT_EQ(s.index, 41u);
  EXPECT_EQ(s.count, 156u);
  EXPECT_EQ(std::get<Device>(round_trip(Device{"NVIDIA H200"})).name, "NVIDIA H200");
  EXPECT_EQ(std::get<NoGpu>(round_trip(NoGpu{"no driver"})).reason, "no driver");
  EXPECT_EQ(std::get<Call>(round_trip(Call{"randn/bf16/2x773"})).name, "randn/bf16/2x773");
  EXPECT_TRUE(std::holds_alternative<Called>(round_trip(Called{})));
  EXPECT_EQ(std::get<Done>(round_trip(Done{Disposition::passed})).verdict, Disposition::passed);
  EXPECT_EQ(std::get<Error>(round_trip(Error{"boom"})).message, "boom");
}

TEST(WorkerProtocol, RejectsWhatIsNotAMessage) {
  EXPECT_FALSE(parse("").has_value());
  EXPECT_FALSE(parse("not json").has_value());
  EXPECT_FALSE(parse("[1, 2]").has_value());
  EXPECT_FALSE(parse(R"({"type": "launch"})").has_value());
  EXPECT_FALSE(parse(R"({"name": "x"})").has_value());
  // A disposition or verdict that names none is no message either.
  EXPECT_FALSE(parse(R"({"type": "end", "name": "x", "disposition": "PASSED"})").has_value());
  EXPECT_FALSE(parse(R"({"type": "done", "verdict": "ok"})").has_value());
  EXPECT_FALSE(parse(R"({"type": "end", "name": "x", "dtype": "fp8", "disposition": "failed", "cause": "runtime"})").has_value());
  EXPECT_TRUE(parse(R"({"type": "done", "verdict": "incorrect"})").has_value());
}

TEST(WorkerProtocol, TheWireFormatIsStable) {
  // The parent and child are one program, but logs and tools read these lines too.
  EXPECT_EQ(serialise(Call{"x"}), "{\"name\":\"x\",\"type\":\"call\"}\n");
  EXPECT_EQ(serialise(Called{}), "{\"type\":\"called\"}\n");
  EXPECT_EQ(serialise(End{"randn/fp16/1x64", "randn", Dtype::fp16, Disposition::passed, "", Cause::passed, {1, 64, 128}}),
            "{\"cause\":\"passed\",\"disposition\":\"passed\",\"dtype\":\"fp16\",\"name\":\"randn/fp16/1x64\",\"set\":\"randn\","
            "\"shape\":[1,64,128],\"summary\":\"\",\"type\":\"end\"}\n");
}
