package dev.pulsebus.config;

import java.util.Set;

/** Published when the configuration changed (a write from code, or an edit of a file): the keys that did. */
public record ConfigChanged(Set<String> keys) {
}
