package dev.pulsebus.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The one Jackson mapper of PulseBus (thread-safe once configured). Internal: not an API. */
public final class Json {

    public static final ObjectMapper MAPPER = new ObjectMapper(JsonStreaming.factory()) // pooled buffers
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private Json() {
    }
}
