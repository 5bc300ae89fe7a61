import { Suspense } from "react";
import { SignUpView } from "@/components/auth/sign-up-view";

export const metadata = { title: "Sign up · Tandem" };

export default function SignUpPage() {
  return (
    <Suspense>
      <SignUpView />
    </Suspense>
  );
}
