// LiveMessageQueue: first in, first out; no storage while empty; a queue
// that is never emptied stays bounded by what it holds.
#include <gtest/gtest.h>

#include <vector>

#include "app/live/live_message_queue.hpp"
#include "core/shared_buffer.hpp"

using namespace srs;

namespace {

LiveMessagePtr message(uint32_t ts) {
    const uint8_t body[] = {0xaf, 0x01, 0x21};
    return LiveMessagePtr(LiveMessage::create(LiveMessageKind::kAudio, ts, SharedBytes::copy_of(body, sizeof(body))));
}

std::vector<uint32_t> timestamps(const LiveMessageQueue& q) {
    std::vector<uint32_t> out;
    for (const auto& m : q) out.push_back(m->timestamp());
    return out;
}

}  // namespace

TEST(LiveMessageQueue, FirstInFirstOutAndNoBlockWhileEmpty) {
    LiveMessageQueue q;
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.capacity(), 0u);
    for (uint32_t ts = 1; ts <= 3; ts++) q.push_back(message(ts));
    EXPECT_EQ(q.size(), 3u);
    EXPECT_EQ(timestamps(q), (std::vector<uint32_t>{1, 2, 3}));
    EXPECT_EQ(q.front()->timestamp(), 1u);
    q.pop_front();
    EXPECT_EQ(q.size(), 2u);
    EXPECT_EQ(timestamps(q), (std::vector<uint32_t>{2, 3}));
    q.pop_front();
    q.pop_front();
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.capacity(), 0u);  // the block went with the last message
    q.push_back(message(9));
    q.clear();
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.capacity(), 0u);
}

TEST(LiveMessageQueue, TheFrontMovesOutIntact) {
    // The pump moves the front out, then pops it (LiveConsumer::dump).
    LiveMessageQueue q;
    q.push_back(message(5));
    q.push_back(message(6));
    LiveMessagePtr taken = std::move(q.front());
    q.pop_front();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->timestamp(), 5u);
    EXPECT_EQ(timestamps(q), (std::vector<uint32_t>{6}));
}

TEST(LiveMessageQueue, NeverEmptiedStaysBounded) {
    // A player that always keeps some messages back: ten in, nine out,
    // 1,000 times. The queue keeps its order and its storage stays within a
    // small multiple of what it holds.
    LiveMessageQueue q;
    uint32_t in = 0, out = 0;
    for (int round = 0; round < 1000; round++) {
        for (int i = 0; i < 10; i++) q.push_back(message(in++));
        for (int i = 0; i < 9; i++) {
            ASSERT_EQ(q.front()->timestamp(), out++);
            q.pop_front();
        }
        ASSERT_EQ(q.size(), static_cast<size_t>(round + 1));
        ASSERT_LE(q.capacity(), 4 * q.size() + 2 * LiveMessageQueue::kFirstCapacity);
    }
    std::vector<uint32_t> rest = timestamps(q);
    ASSERT_EQ(rest.size(), 1000u);
    for (size_t i = 0; i < rest.size(); i++) EXPECT_EQ(rest[i], out + i);
}
