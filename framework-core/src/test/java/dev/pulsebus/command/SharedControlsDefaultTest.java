package dev.pulsebus.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedControls#acquireAll}'s default, for stores that decide one control per call: each asked in turn,
 * the grants before a refusal released, newest first; a store that cannot answer leaves nothing granted.
 */
class SharedControlsDefaultTest {

    /** Answers each control as told, and keeps what it was asked. */
    private static final class Scripted implements SharedControls {
        final List<String> calls = new ArrayList<>();
        long cooldown = GRANTED;
        long rateLimit = GRANTED;
        long quota = GRANTED;

        @Override
        public long cooldown(String key, long windowMillis, long now) {
            calls.add("cooldown " + key + " " + windowMillis);
            return cooldown;
        }

        @Override
        public long rateLimit(String key, int limit, long windowMillis, long now) {
            calls.add("rate_limit " + key + " " + limit + "/" + windowMillis);
            return rateLimit;
        }

        @Override
        public long quota(String key, String periodKey, int limit, long periodEndMillis, long now) {
            calls.add("quota " + key + " " + periodKey + " " + limit);
            return quota;
        }

        @Override
        public boolean release(String control, String key, String periodKey) {
            calls.add("release " + control + " " + key);
            return true;
        }
    }

    private static final SharedControls.Ask[] ASKS = {
        new SharedControls.Ask("cooldown", "c", 0, 1000, "", 0),
        new SharedControls.Ask("rate_limit", "r", 5, 60_000, "", 0),
        new SharedControls.Ask("quota", "q", 2, 0, "2026-12-02", 99),
    };

    @Test
    void allGrantedAsksEachInOrder() {
        Scripted s = new Scripted();
        assertThat(s.acquireAll(ASKS, 7)).isEqualTo(SharedControls.Decision.ALL_GRANTED);
        assertThat(s.calls).containsExactly("cooldown c 1000", "rate_limit r 5/60000", "quota q 2026-12-02 2");
    }

    @Test
    void aRefusalReleasesTheGrantsBeforeItNewestFirstAndAsksNoFurther() {
        Scripted s = new Scripted();
        s.quota = 4_000;
        assertThat(s.acquireAll(ASKS, 7)).isEqualTo(new SharedControls.Decision(2, 4_000));
        assertThat(s.calls).containsExactly("cooldown c 1000", "rate_limit r 5/60000", "quota q 2026-12-02 2",
                "release rate_limit r", "release cooldown c");
        s.calls.clear();
        s.quota = SharedControls.GRANTED;
        s.rateLimit = SharedControls.SILENT;
        assertThat(s.acquireAll(ASKS, 7)).isEqualTo(new SharedControls.Decision(1, SharedControls.SILENT));
        assertThat(s.calls).containsExactly("cooldown c 1000", "rate_limit r 5/60000", "release cooldown c");
    }

    @Test
    void aStoreThatCannotAnswerLeavesNothingGranted() {
        Scripted s = new Scripted();
        s.rateLimit = SharedControls.UNAVAILABLE;
        assertThat(s.acquireAll(ASKS, 7)).isEqualTo(SharedControls.Decision.NOT_ANSWERED);
        assertThat(s.calls).containsExactly("cooldown c 1000", "rate_limit r 5/60000", "release cooldown c");
    }

    /** The router decides a command's controls through acquireAll when they are shared, and answers its refusal. */
    @Test
    void theRouterAsksEveryControlOfACommandAtOnceAndAnswersTheRefusingOne() {
        Scripted s = new Scripted();
        s.rateLimit = 30_000;
        CommandRouter router = CommandRouter.builder().sharedControls(s).build();
        router.register(Command.named("spin").cooldown(java.time.Duration.ofSeconds(1), Scope.USER)
                .rateLimit(5, java.time.Duration.ofMinutes(1), Scope.GLOBAL).handler(call -> call.reply("spun")));
        Msg m = new Msg("/spin", "ann", "lobby");
        assertThat(router.route(m)).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.calls).hasSize(3).last().asString().startsWith("release cooldown");
        assertThat(m.replies).singleElement().asString().contains("30 s");
    }
}
