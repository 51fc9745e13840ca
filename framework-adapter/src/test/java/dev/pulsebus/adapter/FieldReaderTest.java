package dev.pulsebus.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link FieldReader}: plain values, nulls left out, and what repeats within a read made once. */
class FieldReaderTest {

    private final FieldReader reader = new FieldReader("supergroup", "member");
    private final JsonBytes json = new JsonBytes();

    @SuppressWarnings("unchecked")
    private Map<String, Object> read(String document) throws JsonBytes.MalformedException {
        byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
        reader.reset();
        JsonBytes j = json.reset(bytes, 0, bytes.length);
        Map<String, Object> map = reader.object(j, "update_type", "message");
        j.finish();
        return map;
    }

    @Test
    void readsPlainValuesAndLeavesNullsOut() throws Exception {
        Map<String, Object> m = read("""
                {"s": "é", "n": 12, "big": 123456789012345678901, "d": 1.5, "t": true, "f": false, "x": null,
                 "l": [1, null, "a", {}], "o": {"k": null}, "s": "last"}""");
        assertThat(m).containsExactly(Map.entry("s", "last"), Map.entry("n", 12L),
                Map.entry("big", new java.math.BigInteger("123456789012345678901")), Map.entry("d", 1.5),
                Map.entry("t", true), Map.entry("f", false), Map.entry("l", List.of(1L, "a", Map.of())),
                Map.entry("o", Map.of()), Map.entry("update_type", "message"));
    }

    @Test
    void whatRepeatsWithinAReadIsMadeOnceAndKnownValuesAreTheConstants() throws Exception {
        Map<String, Object> m = read("""
                {"from": {"id": 7654321, "first_name": "Alice", "username": "alice_l"},
                 "chat": {"id": -1001234567890, "title": "PulseBus testers", "type": "supergroup"},
                 "reply": {"from": {"id": 7654321, "first_name": "Alice", "username": "alice_l"},
                           "chat": {"id": -1001234567890, "title": "PulseBus testers", "type": "supergroup"},
                           "by": {"name": "Alice", "seen": 7654321, "status": "member"}}}""");
        Map<?, ?> from = (Map<?, ?>) m.get("from");
        Map<?, ?> reply = (Map<?, ?>) m.get("reply");
        assertThat(reply.get("from")).isSameAs(from);
        assertThat(reply.get("chat")).isSameAs(m.get("chat"));
        Map<?, ?> by = (Map<?, ?>) reply.get("by");
        assertThat(by.get("name")).isSameAs(from.get("first_name"));
        assertThat(by.get("seen")).isSameAs(from.get("id"));
        assertThat(by.get("status")).isSameAs("member");
        assertThat(((Map<?, ?>) m.get("chat")).get("type")).isSameAs("supergroup");
    }

    @Test
    void eachNullLeftOutIsToldWithItsKeyAndPath() throws Exception {
        List<String> told = new java.util.ArrayList<>();
        FieldReader nulls = new FieldReader((key, path) -> told.add(key + " at " + path));
        byte[] bytes = """
                {"a": null, "b": {"c": [1, null, {"d": null}]}, "e": [[null]], "f": {}}""".getBytes(
                StandardCharsets.UTF_8);
        Map<String, Object> m = nulls.object(json.reset(bytes, 0, bytes.length), null, null);
        assertThat(m).isEqualTo(Map.of("b", Map.of("c", List.of(1L, Map.of())), "e", List.of(List.of()),
                "f", Map.of()));
        byte[] named = "{\"x\": {\"y\": null}}".getBytes(StandardCharsets.UTF_8);
        nulls.value(json.reset(named, 0, named.length), "sender");
        nulls.object(json.reset(named, 0, named.length), "face");

        assertThat(told).containsExactly("a at a", "null at b.c[1]", "d at b.c[2].d", "null at e[0][0]",
                "y at sender.x.y", "y at face.x.y");
    }
}
