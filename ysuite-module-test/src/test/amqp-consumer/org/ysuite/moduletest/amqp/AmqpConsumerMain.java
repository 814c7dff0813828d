package org.ysuite.moduletest.amqp;

import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.net.ServerSocket;
import org.ysuite.amqp.AmqpPublisher;
import org.ysuite.amqp.OnFull;

/**
 * Uses ysuite-amqp's API on the module path without a broker: a builder's argument check, and a
 * publisher opened against a port where nothing listens, which must fail with an
 * {@link IOException} from amqp-client. Prints one line per check, then {@code amqp consumer: ok};
 * any failure is an exception and a non-zero exit status.
 */
public final class AmqpConsumerMain {

    private AmqpConsumerMain() {
    }

    /**
     * Runs the checks.
     *
     * @param args ignored
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        for (Class<?> c : new Class<?>[] {AmqpPublisher.class, ConnectionFactory.class}) {
            Module m = c.getModule();
            System.out.println("module: " + AmqpConsumerMain.class.getModule().getName() + " reads " + m.getName()
                    + (m.getDescriptor().isAutomatic() ? " (automatic)" : " (explicit)"));
        }
        System.out.println("exports: " + AmqpPublisher.class.getModule().getDescriptor().exports());
        try {
            AmqpPublisher.builder().confirmWindow(3);
            throw new AssertionError("confirmWindow(3) accepted");
        } catch (IllegalArgumentException expected) {
            System.out.println("refused: " + expected.getMessage());
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(port);
        factory.setConnectionTimeout(5_000);
        try (AmqpPublisher p = AmqpPublisher.builder().onFull(OnFull.FAIL).open(factory)) {
            throw new AssertionError("opened a publisher with no broker: " + p);
        } catch (IOException expected) {
            System.out.println("no broker: " + expected.getClass().getSimpleName());
        }
        System.out.println("amqp consumer: ok");
    }
}
