#!/usr/bin/env python3
"""A vehicle stack written with rclpy, for fieldproof's runner: it drives to the goal it hears.

What a team's own Python stack looks like to fieldproof: a plain rclpy node in the vehicle's
namespace that reads the contract's topics (`odom`, and the runner's `goal_pose` in the odom
frame, reliable and transient local as Nav2's is) and publishes velocity commands on `cmd_vel`
(remapped to where the runner wants them: upstream of the failsafe when there is one). It turns
towards the goal, then drives at up to `max_speed_mps`, and stops within `goal_tolerance_m`.
No obstacle avoidance: a straight, clear path is this example's world.

    ros2 launch config/stacks/rclpy_goal_driver.launch.py namespace:=ugv1 cmd_vel:=cmd_vel_nav
"""

import math

import rclpy
from geometry_msgs.msg import PoseStamped, Twist
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Bool


def heading_of(orientation) -> float:
    """The yaw of a quaternion (rad)."""
    return math.atan2(2.0 * (orientation.w * orientation.z + orientation.x * orientation.y),
                      1.0 - 2.0 * (orientation.y * orientation.y + orientation.z * orientation.z))


def wrapped(angle: float) -> float:
    """`angle` in (-pi, pi]."""
    return math.atan2(math.sin(angle), math.cos(angle))


class GoalDriver(Node):
    """Turn to the goal, drive to it, stop there."""

    def __init__(self):
        super().__init__("rclpy_goal_driver")
        self.max_speed = self.declare_parameter("max_speed_mps", 0.5).value
        self.max_turn = self.declare_parameter("max_turn_radps", 0.8).value
        self.tolerance = self.declare_parameter("goal_tolerance_m", 0.3).value
        self.goal = None
        self.pose = None
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.create_subscription(PoseStamped, "goal_pose", self.on_goal, latched)
        self.create_subscription(Odometry, "odom", self.on_odom, 10)
        self.command = self.create_publisher(Twist, "cmd_vel", 10)
        self.reached = self.create_publisher(Bool, "goal_reached", latched)
        self.create_timer(0.1, self.step)

    def on_goal(self, message: PoseStamped):
        self.goal = (message.pose.position.x, message.pose.position.y)
        self.get_logger().info(f"goal ({self.goal[0]:.2f}, {self.goal[1]:.2f})")
        self.reached.publish(Bool(data=False))

    def on_odom(self, message: Odometry):
        pose = message.pose.pose
        self.pose = (pose.position.x, pose.position.y, heading_of(pose.orientation))

    def step(self):
        twist = Twist()
        if self.goal is not None and self.pose is not None:
            x, y, heading = self.pose
            dx, dy = self.goal[0] - x, self.goal[1] - y
            distance = math.hypot(dx, dy)
            if distance <= self.tolerance:
                self.goal = None
                self.reached.publish(Bool(data=True))
                self.get_logger().info("goal reached")
            else:
                error = wrapped(math.atan2(dy, dx) - heading)
                twist.angular.z = max(-self.max_turn, min(self.max_turn, 1.5 * error))
                if abs(error) < 0.3:
                    twist.linear.x = min(self.max_speed, 0.8 * distance) * math.cos(error)
        self.command.publish(twist)


def main():
    rclpy.init()
    node = GoalDriver()
    try:
        rclpy.spin(node)
    except KeyboardInterrupt:
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()
