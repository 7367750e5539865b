#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "harness/interleave.h"

using namespace optbench;

TEST(Interleave, EveryRoundIsAPermutation) {
  InterleaveSchedule s(4, InterleaveOrder::random, 1);
  for (int r = 0; r < 100; ++r) {
    auto round = s.next_round();
    std::sort(round.begin(), round.end());
    EXPECT_EQ(round, (std::vector<std::size_t>{0, 1, 2, 3}));
  }
}

TEST(Interleave, RandomOrderBalancesFirstPosition) {
  InterleaveSchedule s(2, InterleaveOrder::random, 5);
  std::map<std::size_t, int> first;
  for (int r = 0; r < 2000; ++r) first[s.next_round()[0]]++;
  EXPECT_NEAR(first[0], 1000, 150);
  EXPECT_NEAR(first[1], 1000, 150);
}

TEST(Interleave, SameSeedSameOrder) {
  InterleaveSchedule a(3, InterleaveOrder::random, 9), b(3, InterleaveOrder::random, 9);
  for (int r = 0; r < 20; ++r) EXPECT_EQ(a.next_round(), b.next_round());
}

TEST(Interleave, AbbaAlternates) {
  InterleaveSchedule s(2, InterleaveOrder::abba, 0);
  EXPECT_EQ(s.next_round(), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(s.next_round(), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(s.next_round(), (std::vector<std::size_t>{0, 1}));
}

TEST(Interleave, Parsing) {
  EXPECT_EQ(parse_interleave_order("abba"), InterleaveOrder::abba);
  EXPECT_THROW(parse_interleave_order("zigzag"), std::invalid_argument);
  EXPECT_THROW(InterleaveSchedule(0, InterleaveOrder::random, 1), std::invalid_argument);
}
