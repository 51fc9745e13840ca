package dev.pulsebus.module;

/** Published on the bus after a module has loaded (after its {@code onLoad} returned). */
public record ModuleLoaded(String name, String version) {
}
