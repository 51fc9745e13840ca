package dev.pulsebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class JsonStreamingTest {

    @Test
    void virtualThreadsShareOnePooledSetOfBuffersInsteadOfMakingOneEach() throws Exception {
        int before = JsonStreaming.BUFFERS.pooledCount();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 50; i++) { // one after another: each borrows the set the last one gave back
                int n = i;
                String json = threads.submit(() -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    try (JsonGenerator g = JsonStreaming.FACTORY.createGenerator(out)) {
                        g.writeStartObject();
                        g.writeNumberField("n", n);
                        g.writeEndObject();
                    }
                    return Json.MAPPER.readTree(out.toByteArray()).toString();
                }).get();
                assertThat(json).isEqualTo("{\"n\":" + n + "}");
            }
        }
        // Jackson's default (a set per thread) would report no pool at all (-1) and make 100 sets here.
        assertThat(JsonStreaming.BUFFERS.pooledCount()).isBetween(1, Math.max(1, before) + 1);
        assertThat(Json.MAPPER.getFactory()._getRecyclerPool()).isSameAs(JsonStreaming.BUFFERS);
        assertThat(JsonStreaming.FACTORY._getRecyclerPool()).isSameAs(JsonStreaming.BUFFERS);
    }
}
