package dev.pulsebus.module;

/** Published on the bus after a module has unloaded and everything it registered was released. */
public record ModuleUnloaded(String name, String version) {
}
