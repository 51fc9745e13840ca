/**
 * A bot without the HTTP server: {@link dev.pulsebus.runtime.PulseBus} assembles storage, the bus, the command
 * router, transcripts, the pipeline, the modules and the configured platforms from
 * {@link dev.pulsebus.runtime.RuntimeSettings} (section records, each with a builder), and shuts them down in
 * order. The standalone server composes one and adds its listener and the cluster.
 */
@NullMarked
package dev.pulsebus.runtime;

import org.jspecify.annotations.NullMarked;
