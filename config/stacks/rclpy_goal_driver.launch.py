"""The rclpy example stack (rclpy_goal_driver.py beside this file) as a ROS 2 Python launch
file: what `stack: { launch: ../stacks/rclpy_goal_driver.launch.py }` in a scenario starts with
`ros2 launch`. The runner passes the vehicle's `namespace` and the topic the stack's velocity
commands go to (`cmd_vel`); `max_speed_mps` and `use_sim_time` may be set too.

    source /opt/ros/jazzy/setup.bash
    ros2 launch config/stacks/rclpy_goal_driver.launch.py namespace:=ugv1 cmd_vel:=cmd_vel_nav
"""

import os
import sys

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess
from launch.substitutions import LaunchConfiguration


def generate_launch_description():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rclpy_goal_driver.py")
    namespace = LaunchConfiguration("namespace")
    return LaunchDescription([
        DeclareLaunchArgument("namespace", default_value="ugv1", description="the vehicle's ROS namespace"),
        DeclareLaunchArgument("cmd_vel", default_value="cmd_vel_nav",
                              description="where the velocity commands go (cmd_vel_nav when link_monitor follows)"),
        DeclareLaunchArgument("use_sim_time", default_value="true", description="follow /clock"),
        DeclareLaunchArgument("max_speed_mps", default_value="0.5", description="top speed of the driver"),
        # A script, not an installed package: started as a process, in the namespace by its
        # ROS arguments (what launch_ros' Node would pass).
        ExecuteProcess(
            cmd=[sys.executable, script, "--ros-args",
                 "-r", ["__ns:=/", namespace],
                 "-r", ["cmd_vel:=", LaunchConfiguration("cmd_vel")],
                 "-p", ["use_sim_time:=", LaunchConfiguration("use_sim_time")],
                 "-p", ["max_speed_mps:=", LaunchConfiguration("max_speed_mps")]],
            name="rclpy_goal_driver",
            output="screen",
        ),
    ])
