/**
 * Bot modules: the {@link dev.pulsebus.module.BotModule} SPI, the {@link dev.pulsebus.module.ModuleContext}
 * a module registers through, and {@link dev.pulsebus.module.Modules}, which finds modules on the
 * classpath and in a folder of jars and orders them by their dependencies.
 *
 * <p>It may import every other core package; only {@code framework-storage} and {@code framework-http}
 * build on it.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.module;
