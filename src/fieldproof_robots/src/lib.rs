//! Vehicle manifests (robots/<name>/robot.yaml) and worlds (worlds/<name>.yaml): the typed, validated model every tool reads.
