package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.transcript.TranscriptRecord;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The transcript seq shared by several instances on one database: two stores (two instances) on PostgreSQL and
 * MariaDB take seqs no other takes, starting after what is stored; SQLite is refused with the reason.
 */
class SharedSeqTest {

    @Test
    void twoInstancesOnPostgresqlNeverTakeTheSameSeq() throws Exception {
        check(Backend.POSTGRESQL);
    }

    @Test
    void twoInstancesOnMariadbNeverTakeTheSameSeq() throws Exception {
        check(Backend.MYSQL);
    }

    private static void check(Backend backend) throws Exception {
        try (Backend.Place place = backend.newPlace(); Storage one = place.open(); Storage two = place.open()) {
            one.transcripts().append(List.of(new TranscriptRecord(41, ChatRef.group("http", "r"), "ann",
                    Instant.ofEpochMilli(1), "m", Message.text("before"), false)));
            LongSupplier a = one.sharedSeq();
            LongSupplier b = two.sharedSeq();
            Set<Long> taken = ConcurrentHashMap.newKeySet();
            List<Thread> threads = List.of(
                    Thread.ofVirtual().start(() -> { for (int i = 0; i < 200; i++) { taken.add(a.getAsLong()); } }),
                    Thread.ofVirtual().start(() -> { for (int i = 0; i < 200; i++) { taken.add(b.getAsLong()); } }));
            for (Thread t : threads) {
                t.join();
            }
            assertThat(taken).hasSize(400);
            assertThat(new HashSet<>(taken)).allMatch(seq -> seq > 41);
        }
    }

    @Test
    void renewedOnPostgresqlTheNextSeqComesAfterEveryOneTakenElsewhere() throws Exception {
        checkRenew(Backend.POSTGRESQL);
    }

    @Test
    void renewedOnMariadbTheNextSeqComesAfterEveryOneTakenElsewhere() throws Exception {
        checkRenew(Backend.MYSQL);
    }

    /**
     * Seqs are taken in blocks: each instance's grow, but one may hand out seqs lower than another's last. After
     * {@link SharedSeq#renew} (a chat moving to this instance), the next comes after all taken anywhere.
     */
    private static void checkRenew(Backend backend) throws Exception {
        try (Backend.Place place = backend.newPlace(); Storage one = place.open(); Storage two = place.open()) {
            SharedSeq a = one.sharedSeq();
            SharedSeq b = two.sharedSeq();
            a.maxAgeNanos = Long.MAX_VALUE; // however slow the machine, a keeps its block until renewed
            long first = a.getAsLong(); // a holds a block
            long last = 0;
            for (int i = 0; i < 3 * SharedSeq.BLOCK; i++) {
                long seq = b.getAsLong();
                assertThat(seq).as("one instance's seqs grow").isGreaterThan(last);
                last = seq;
            }
            long stale = a.getAsLong();
            assertThat(stale).as("from a's block, taken before b's").isGreaterThan(first).isLessThan(last);
            a.renew();
            assertThat(a.getAsLong()).as("after renew: after every seq b took").isGreaterThan(last);
        }
    }

    @Test
    void seqsTakenAheadAreDroppedOnceOld() throws Exception {
        try (Backend.Place place = Backend.POSTGRESQL.newPlace(); Storage one = place.open(); Storage two = place.open()) {
            SharedSeq a = one.sharedSeq();
            SharedSeq b = two.sharedSeq();
            a.getAsLong();
            long newest = b.getAsLong();
            Thread.sleep(SharedSeq.MAX_AGE_MILLIS + 50);
            assertThat(a.getAsLong()).as("a's block was too old: taken anew").isGreaterThan(newest);
        }
    }

    @Test
    void sqliteCannotShareItsSeq() throws Exception {
        try (Backend.Place place = Backend.SQLITE.newPlace(); Storage s = place.open()) {
            assertThatThrownBy(s::sharedSeq).isInstanceOf(StorageException.class).hasMessageContaining("PostgreSQL or MariaDB");
        }
    }
}
