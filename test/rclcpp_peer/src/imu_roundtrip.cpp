// An rclcpp node (real ROS 2 Jazzy) that publishes sensor_msgs/msg/Imu on one topic and
// subscribes to another, for one of our nodes (a relay) in between.
//
//     imu_roundtrip INPUT OUTPUT COUNT
//
// It publishes a primer until one comes back (discovery done), then COUNT seeded random
// samples, waits for them, and prints one JSON line:
//   {"primed": bool, "sent": N, "received": N, "field_equal": N,
//    "peer_type_hashes": {"<publisher|subscription> <node> <topic>": "RIHS01_..."}}
// field_equal counts the samples that came back equal, field for field, to what was sent; the
// type hashes are what rmw_cyclonedds_cpp read from the other nodes' endpoints on the two
// topics ("INVALID" where it read none). Exit 0 even when samples are missing: the test judges.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rclcpp/rclcpp.hpp"
#include "rcutils/allocator.h"
#include "rosidl_runtime_c/type_hash.h"
#include "sensor_msgs/msg/imu.hpp"

namespace
{

using Imu = sensor_msgs::msg::Imu;
using namespace std::chrono_literals;

const char kPrimerFrame[] = "primer";

Imu random_imu(std::mt19937 & rng, int index)
{
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> ten(-10.0, 10.0);
  std::uniform_int_distribution<uint32_t> nanos(0, 999999999);
  Imu msg;
  msg.header.stamp.sec = 1000 + index;
  msg.header.stamp.nanosec = nanos(rng);
  msg.header.frame_id = "imu_link_" + std::to_string(index);
  msg.orientation.x = unit(rng);
  msg.orientation.y = unit(rng);
  msg.orientation.z = unit(rng);
  msg.orientation.w = unit(rng);
  for (auto * vector : {&msg.angular_velocity, &msg.linear_acceleration}) {
    vector->x = ten(rng);
    vector->y = ten(rng);
    vector->z = ten(rng);
  }
  for (auto * covariance :
    {&msg.orientation_covariance, &msg.angular_velocity_covariance,
      &msg.linear_acceleration_covariance})
  {
    for (double & value : *covariance) {
      value = unit(rng);
    }
  }
  return msg;
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
  if (argc < 4) {
    std::fprintf(stderr, "usage: imu_roundtrip INPUT OUTPUT COUNT\n");
    return 2;
  }
  const std::string input = argv[1];
  const std::string output = argv[2];
  const int count = std::atoi(argv[3]);
  rclcpp::init(argc, argv);
  auto node = std::make_shared<rclcpp::Node>("rclcpp_imu_peer");
  auto qos = rclcpp::QoS(100).reliable();
  auto publisher = node->create_publisher<Imu>(input, qos);
  bool primed = false;
  std::map<std::string, Imu> received;
  auto subscription = node->create_subscription<Imu>(
    output, qos, [&](const Imu & msg) {
      if (msg.header.frame_id == kPrimerFrame) {
        primed = true;
      } else {
        received[msg.header.frame_id] = msg;
      }
    });
  rclcpp::executors::SingleThreadedExecutor executor;
  executor.add_node(node);

  auto spin_until = [&](auto done, std::chrono::milliseconds timeout, auto each) {
      const auto deadline = std::chrono::steady_clock::now() + timeout;
      while (!done() && std::chrono::steady_clock::now() < deadline && rclcpp::ok()) {
        each();
        executor.spin_some(50ms);
        std::this_thread::sleep_for(10ms);
      }
    };

  Imu primer;
  primer.header.frame_id = kPrimerFrame;
  spin_until([&] {return primed;}, 30s, [&] {publisher->publish(primer);});

  std::mt19937 rng(7);
  std::vector<Imu> sent;
  if (primed) {
    for (int index = 0; index < count; ++index) {
      sent.push_back(random_imu(rng, index));
      publisher->publish(sent.back());
      executor.spin_some(10ms);
    }
    spin_until(
      [&] {return received.size() >= sent.size();}, 20s, [] {});
  }
  int field_equal = 0;
  for (const auto & msg : sent) {
    auto found = received.find(msg.header.frame_id);
    if (found != received.end() && found->second == msg) {
      ++field_equal;
    }
  }

  std::string hashes;
  auto add_hash = [&](const char * kind, const rclcpp::TopicEndpointInfo & info, const std::string & topic) {
      if (info.node_name() == node->get_name() && info.node_namespace() == node->get_namespace()) {
        return;  // our own endpoint
      }
      const std::string ns = info.node_namespace() == "/" ? "" : info.node_namespace();
      const auto & hash = info.topic_type_hash();
      hashes += std::string(hashes.empty() ? "" : ", ") + "\"" + kind + " " + ns + "/" + info.node_name() +
        " " + topic + "\": \"" + (hash.version == ROSIDL_TYPE_HASH_VERSION_UNSET ? "INVALID" : hash_string(hash)) + "\"";
    };
  for (const auto & info : node->get_subscriptions_info_by_topic(input)) {
    add_hash("subscription", info, input);
  }
  for (const auto & info : node->get_publishers_info_by_topic(output)) {
    add_hash("publisher", info, output);
  }
  std::printf(
    "{\"primed\": %s, \"sent\": %zu, \"received\": %zu, \"field_equal\": %d, \"peer_type_hashes\": {%s}}\n",
    primed ? "true" : "false", sent.size(), received.size(), field_equal, hashes.c_str());
  std::fflush(stdout);
  rclcpp::shutdown();
  return 0;
}
