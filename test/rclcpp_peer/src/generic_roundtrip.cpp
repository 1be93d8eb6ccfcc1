// An rclcpp node (real ROS 2 Jazzy) that exchanges messages of any type with one of our nodes,
// as serialized CDR: rclcpp's GenericPublisher and GenericSubscription.
//
//     generic_roundtrip TYPE INPUT OUTPUT LISTEN_MS [OUTPUT_TYPE [PRIMERS]] < messages.hex
//
// stdin holds one CDR message per line in hex, the first PRIMERS of them (default 1) the
// primers. It publishes the primers in turn on INPUT (reliable, depth 100) until anything
// arrives on OUTPUT (best effort, so it matches either reliability), then the other messages
// 20 ms apart, listens LISTEN_MS more and prints
// one JSON line: {"primed": bool, "received": ["<hex>", ...], "peer_type_hashes": {...}}, the
// messages received after the primer and the type hash rmw_cyclonedds_cpp read from every
// other node's endpoint on the two topics ("INVALID" where it read none). INPUT `-` publishes
// nothing (an output-only node: primed by its first message). OUTPUT_TYPE (default TYPE) is
// the type of OUTPUT, for a node whose output differs. Exit 0 even when messages are missing:
// the test judges.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rclcpp/rclcpp.hpp"
#include "rclcpp/serialized_message.hpp"
#include "rcutils/allocator.h"
#include "rosidl_runtime_c/type_hash.h"

namespace
{

using namespace std::chrono_literals;

rclcpp::SerializedMessage from_hex(const std::string & hex)
{
  rclcpp::SerializedMessage message(hex.size() / 2);
  auto & buffer = message.get_rcl_serialized_message();
  for (size_t index = 0; index + 1 < hex.size(); index += 2) {
    buffer.buffer[index / 2] = static_cast<uint8_t>(std::stoul(hex.substr(index, 2), nullptr, 16));
  }
  buffer.buffer_length = hex.size() / 2;
  return message;
}

std::string to_hex(const rclcpp::SerializedMessage & message)
{
  static const char digits[] = "0123456789abcdef";
  const auto & buffer = message.get_rcl_serialized_message();
  std::string out;
  out.reserve(buffer.buffer_length * 2);
  for (size_t index = 0; index < buffer.buffer_length; ++index) {
    out.push_back(digits[buffer.buffer[index] >> 4]);
    out.push_back(digits[buffer.buffer[index] & 0xf]);
  }
  return out;
}

std::string hash_string(const rosidl_type_hash_t & hash)
{
  char * text = nullptr;
  if (rosidl_stringify_type_hash(&hash, rcutils_get_default_allocator(), &text) != RCUTILS_RET_OK) {
    return "UNPRINTABLE";
  }
  std::string out(text);
  rcutils_get_default_allocator().deallocate(text, rcutils_get_default_allocator().state);
  return out;
}

}  // namespace

int main(int argc, char ** argv)
{
  if (argc < 5) {
    std::fprintf(
      stderr,
      "usage: generic_roundtrip TYPE INPUT OUTPUT LISTEN_MS [OUTPUT_TYPE [PRIMERS]] < messages.hex\n");
    return 2;
  }
  const std::string type = argv[1];
  const std::string input = argv[2];
  const std::string output = argv[3];
  const auto listen = std::chrono::milliseconds(std::atoi(argv[4]));
  const std::string output_type = argc > 5 ? argv[5] : type;
  const size_t primers = argc > 6 ? std::strtoul(argv[6], nullptr, 10) : 1;
  std::vector<rclcpp::SerializedMessage> messages;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty()) {
      messages.push_back(from_hex(line));
    }
  }
  const bool publishes = input != "-";
  if (publishes && (primers == 0 || messages.size() < primers)) {
    std::fprintf(stderr, "generic_roundtrip: %zu primers wanted, %zu messages on stdin\n", primers,
      messages.size());
    return 2;
  }
  rclcpp::init(argc, argv);
  auto node = std::make_shared<rclcpp::Node>("rclcpp_generic_peer");
  std::shared_ptr<rclcpp::GenericPublisher> publisher;
  if (publishes) {
    publisher = node->create_generic_publisher(input, type, rclcpp::QoS(100).reliable());
  }
  std::vector<std::string> received;
  auto subscription = node->create_generic_subscription(
    output, output_type, rclcpp::QoS(100).best_effort(),
    [&](std::shared_ptr<const rclcpp::SerializedMessage> message) {
      received.push_back(to_hex(*message));
    });
  rclcpp::executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  auto spin_for = [&](std::chrono::milliseconds duration) {
      const auto end = std::chrono::steady_clock::now() + duration;
      while (std::chrono::steady_clock::now() < end && rclcpp::ok()) {
        executor.spin_some(5ms);
        std::this_thread::sleep_for(2ms);
      }
    };

  const auto deadline = std::chrono::steady_clock::now() + 30s;
  for (size_t attempt = 0;
    received.empty() && std::chrono::steady_clock::now() < deadline && rclcpp::ok(); ++attempt)
  {
    if (publishes) {
      publisher->publish(messages[attempt % primers]);
    }
    spin_for(100ms);
  }
  const bool primed = !received.empty();
  spin_for(500ms);
  received.clear();
  if (primed && publishes) {
    for (size_t index = primers; index < messages.size(); ++index) {
      publisher->publish(messages[index]);
      spin_for(20ms);
    }
  }
  spin_for(listen);

  std::string hashes;
  auto add_hash = [&](const char * kind, const rclcpp::TopicEndpointInfo & info, const std::string & topic) {
      if (info.node_name() == node->get_name() && info.node_namespace() == node->get_namespace()) {
        return;  // our own endpoint
      }
      const std::string ns = info.node_namespace() == "/" ? "" : info.node_namespace();
      const auto & hash = info.topic_type_hash();
      hashes += std::string(hashes.empty() ? "" : ", ") + "\"" + kind + " " + ns + "/" +
        info.node_name() + " " + topic + "\": \"" +
        (hash.version == ROSIDL_TYPE_HASH_VERSION_UNSET ? "INVALID" : hash_string(hash)) + "\"";
    };
  if (publishes) {
    for (const auto & info : node->get_subscriptions_info_by_topic(input)) {
      add_hash("subscription", info, input);
    }
  }
  for (const auto & info : node->get_publishers_info_by_topic(output)) {
    add_hash("publisher", info, output);
  }
  std::string list;
  for (const auto & hex : received) {
    list += std::string(list.empty() ? "" : ", ") + "\"" + hex + "\"";
  }
  std::printf(
    "{\"primed\": %s, \"received\": [%s], \"peer_type_hashes\": {%s}}\n",
    primed ? "true" : "false", list.c_str(), hashes.c_str());
  std::fflush(stdout);
  rclcpp::shutdown();
  return 0;
}
