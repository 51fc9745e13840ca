package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The bots table on a test clock: bots that are gone expire and make way for new ones, connected ones stay;
 * {@code /health} names the bots down first. (The table in the real server: ReverseWebSocketV11Test.)
 */
class BotsTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LongAdder untracked = new LongAdder();

    @Test
    void aBotGoneForTheExpiryIsForgottenAndAConnectedOneIsNot() {
        Bots bots = new Bots("onebot11", false, untracked, now::get);
        Bots.Bot gone = bots.bot("1");
        Bots.Bot here = bots.bot("2");
        bots.opened(gone);
        bots.opened(here);
        bots.closed(gone, fakeLink());
        now.addAndGet(Bots.EXPIRY_NANOS - 1);
        bots.state();
        assertThat(bots.find("1")).isNotNull();
        now.addAndGet(2);
        bots.state();
        assertThat(bots.find("1")).isNull();
        assertThat(bots.find("2")).isSameAs(here);
        assertThat(bots.components()).isEqualTo(Map.of("onebot11:2", true));
    }

    @Test
    void aFullTableOfConnectedBotsRefusesANewOneAndCountsIt() {
        Bots bots = new Bots("onebot11", false, untracked, now::get);
        for (int i = 0; i < Bots.MAX; i++) {
            bots.opened(bots.bot("b" + i));
            now.incrementAndGet();
        }
        assertThat(bots.bot("new")).isNull();
        assertThat(untracked.sum()).isEqualTo(1);
        bots.closed(bots.find("b7"), fakeLink());
        now.incrementAndGet();
        bots.closed(bots.find("b3"), fakeLink()); // gone after b7: b7 has been gone longest
        assertThat(bots.bot("new")).isNotNull();
        assertThat(bots.find("b7")).isNull();
        assertThat(bots.find("b3")).isNotNull();
    }

    @Test
    void overHttpABotThatPostsNothingForTheIdleTimeIsGoneAndMakesWay() {
        Bots bots = new Bots("onebot11", true, untracked, now::get);
        for (int i = 0; i < Bots.MAX; i++) {
            bots.posted(bots.bot("b" + i));
            now.incrementAndGet();
        }
        assertThat(bots.bot("new")).as("every bot posted just now").isNull();
        now.addAndGet(Bots.HTTP_IDLE_NANOS + 1);
        bots.posted(bots.find("b0"));
        assertThat(bots.bot("new")).isNotNull();
        assertThat(bots.find("b0")).isNotNull();
        assertThat(bots.find("b1")).as("quiet longest, now b0 posted again").isNull();
    }

    @Test
    void healthListsTheDownOnesFirstAndCountsTheRest() {
        Map<String, Boolean> all = new java.util.TreeMap<>();
        for (int i = 0; i < 30; i++) {
            all.put("onebot11:" + (100 + i), i % 10 != 3);
        }
        int[] unlisted = new int[1];
        Map<String, Boolean> listed = Bots.listed(all, 16, unlisted);
        assertThat(listed).hasSize(16);
        assertThat(unlisted[0]).isEqualTo(14);
        assertThat(listed.keySet()).startsWith("onebot11:103", "onebot11:113", "onebot11:123", "onebot11:100");
        assertThat(Bots.listed(Map.of("onebot11", false), 16, unlisted)).hasSize(1);
        assertThat(unlisted[0]).isZero();
    }

    private static Link fakeLink() {
        return new Link() {
            @Override
            java.util.concurrent.CompletableFuture<JsonNode> call(Protocol.Action action, String selfId,
                    @org.jspecify.annotations.Nullable String botPlatform) {
                throw new UnsupportedOperationException("BotsTest never calls an action on its fake link");
            }
        };
    }
}
