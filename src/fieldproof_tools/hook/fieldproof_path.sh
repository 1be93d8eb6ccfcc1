# Puts the `fieldproof` command on PATH once install/setup.bash is sourced (colcon runs
# this hook for the package; `ros2 run fieldproof_tools fieldproof` works without it).
_colcon_prepend_unique_value PATH "$COLCON_CURRENT_PREFIX/lib/fieldproof_tools"
